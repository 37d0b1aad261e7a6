# Randomised model of porter's cluster-multicast ROLE ring (porter/ptx/role_ring.hpp, tma/role_protocol.hpp) as on main
# after session 36: per CTA one producer (its threads act together), C consumer warps; EMPTY[s] counts 32 arrivals per
# local consumer warp (one per thread) + 1 per peer consumer warp (lane 0's remote arrival); FULL[s] completes when the
# CTA's producer committed the step and its bytes landed. Producer: for pass >= 1 wait own EMPTY phase pass-1 (parity
# wait, hardware semantics), then copy: multicast (issuer (pass*S+stage) % n sends to all) or each CTA's own copy.
# Consumer warp: wait FULL (parity), read, release: 32 local arrivals at once, 1 remote arrival per peer (delayed).
# Checks: a multicast or own copy lands in a CTA's stage only after all its warps released the previous pass; no deadlock.
import random, sys

def run(n, C, S, T, mc, rng):
    cnt = 32 * C + C * (n - 1)
    empty = [[0] * S for _ in range(n)]
    full_commit = [set() for _ in range(n)]     # steps the local producer committed
    landed = [set() for _ in range(n)]          # steps whose bytes landed
    rel = [[[-1] * S for _ in range(C)] for _ in range(n)]  # per warp, highest pass released per stage
    prod = [0] * n; pstate = ['idle'] * n
    cons = [[0] * C for _ in range(n)]
    msgs = []; t = 0
    def later(kind, tgt, payload): msgs.append((t + rng.randint(1, 6), kind, tgt, payload))
    def write(y, a):
        s, p = a % S, a // S
        for w in range(C):
            if rel[y][w][s] < p - 1: return f"RACE: step {a} written into CTA {y} stage {s} while warp {w} released only pass {rel[y][w][s]}"
        later('data', y, a); return None
    while True:
        t += 1
        due = [m for m in msgs if m[0] <= t]; msgs[:] = [m for m in msgs if m[0] > t]
        for _, kind, y, pl in due:
            if kind == 'arr': empty[y][pl] += 1
            else: landed[y].add(pl)
        moved = bool(due)
        for x in rng.sample(range(n), n):
            # producer
            if rng.random() < 0.6:
                a = prod[x]
                if a < T:
                    s, p = a % S, a // S
                    ok = p == 0 or ((empty[x][s] // cnt) & 1) != ((p - 1) & 1)
                    if ok:
                        if a in mc:
                            if (p * S + s) % n == x:
                                for y in range(n):
                                    e = write(y, a)
                                    if e: return e
                        else:
                            e = write(x, a)
                            if e: return e
                        full_commit[x].add(a); prod[x] += 1; moved = True
            for w in rng.sample(range(C), C):
                if rng.random() < 0.5: continue
                c = cons[x][w]
                if c < T and c in full_commit[x] and c in landed[x]:
                    s, p = c % S, c // S
                    rel[x][w][s] = p
                    empty[x][s] += 32
                    for y in range(n):
                        if y != x: later('arr', y, s)
                    cons[x][w] += 1; moved = True
        if all(cons[x][w] == T for x in range(n) for w in range(C)): return None
        if not moved and not msgs:
            can = False
            for x in range(n):
                a = prod[x]
                if a < T:
                    s, p = a % S, a // S
                    if p == 0 or ((empty[x][s] // cnt) & 1) != ((p - 1) & 1): can = True
                for w in range(C):
                    c = cons[x][w]
                    if c < T and c in full_commit[x] and c in landed[x]: can = True
            if not can: return f"DEADLOCK prod={prod} cons={cons}"
        if t > 100000: return "TIMEOUT"

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
for pmc in (1.0, 0.8, 0.5, 0.0):
    bad = {}
    for it in range(1000):
        n = rng.choice([2, 4]); C = rng.choice([1, 2, 3, 8]); S = rng.choice([1, 2, 3, 4]); T = rng.randint(1, 24)
        mc = {a for a in range(T) if rng.random() < pmc}
        r = run(n, C, S, T, mc, rng)
        if r: bad.setdefault(r.split()[0], []).append((n, C, S, T, r[:110]))
    print(pmc, {k: len(v) for k, v in bad.items()} or "clean", [v[0] for v in bad.values()][:2], flush=True)
