# Randomised model of porter's CTA-collective cluster-multicast ring (thread 0's view per CTA).
# mode 'issuer' is NOTES.md's E2, mode 'all' its E3 (cta_empty_protocol.patch). Usage: python3 cluster_ring_model.py SEED
# Each CTA runs run_pipeline: issue steps ahead (S-1 ahead, or 1 when S == 1), consume in order.
# acquire(a) for pass >= 1: send one arrival to EMPTY[stage] of every CTA (each delivered after a random delay),
# then (mode 'all') wait own EMPTY, or (mode 'issuer') wait only if this CTA issues step a.
# copy: a multicast step is issued by the issuer after its wait and lands in every CTA after a delay; a
# non-multicast step lands in the CTA's own stage after a delay. Reads of step c happen while consuming c.
# Checks: a multicast write into CTA y's (stage, pass p) must come after y released (stage, p-1); deadlock.
import random, sys

def run(n, S, T, mc_steps, mode, rng):
    ahead = S - 1 if S > 1 else 1
    issued = [0]*n; consumed = [0]*n          # next step to issue / consume
    state = ['idle']*n                         # 'idle' or ('waitE', a)
    arrivals = [[0]*S for _ in range(n)]       # landed arrivals per EMPTY
    released = [[-1]*S for _ in range(n)]      # highest pass released per stage (CTA's reads done)
    full_ok = [set() for _ in range(n)]        # steps landed in CTA
    msgs = []                                  # (deliver_time, kind, target, payload)
    t = 0
    issuer_of = lambda a: a % n
    def deliver(kind, tgt, payload): msgs.append((t + rng.randint(1, 6), kind, tgt, payload))
    def issue_copy(x, a):
        if a in mc_steps:
            if issuer_of(a) == x:
                for y in range(n):
                    st, p = a % S, a // S
                    if released[y][st] < p - 1: return f"RACE: multicast of step {a} by {x} overwrote CTA {y} stage {st} (released {released[y][st]}, needs {p-1})"
                    deliver('data', y, a)
        else:
            deliver('data', x, a)
        return None
    steps_done = 0
    while True:
        t += 1
        # deliver messages due
        due = [m for m in msgs if m[0] <= t]; msgs[:] = [m for m in msgs if m[0] > t]
        for _, kind, tgt, payload in due:
            if kind == 'arr': arrivals[tgt][payload] += 1
            else: full_ok[tgt].add(payload)
        progressed = bool(due)
        order = list(range(n)); rng.shuffle(order)
        for x in order:
            if rng.random() < 0.4: continue  # random slowness
            st = state[x]
            if st != 'idle':
                a = st[1]; s, p = a % S, a // S
                cur = arrivals[x][s] // n
                if (cur & 1) != ((p - 1) & 1):
                    state[x] = 'idle'; err = issue_copy(x, a)
                    if err: return err
                    issued[x] += 1; progressed = True
                continue
            a = issued[x]
            if a < T and a < consumed[x] + ahead:
                s, p = a % S, a // S
                if p >= 1:
                    if released[x][s] < p - 1: return f"BUG in model: CTA {x} acquires step {a} before releasing"
                    for y in range(n): deliver('arr', y, s)
                    if mode == 'all' or (mode == 'issuer' and issuer_of(a) == x):
                        state[x] = ('waitE', a); progressed = True; continue
                err = issue_copy(x, a)
                if err: return err
                issued[x] += 1; progressed = True
                continue
            c = consumed[x]
            if c < T and c in full_ok[x]:
                released[x][c % S] = c // S
                consumed[x] += 1; progressed = True
        if all(c == T for c in consumed): return None
        if not progressed and not msgs and all(s != 'idle' or True for s in state):
            # nothing in flight: check whether anyone can still move
            stuck = True
            for x in range(n):
                if state[x] != 'idle':
                    a = state[x][1]; s, p = a % S, a // S
                    if (arrivals[x][s] // n & 1) != ((p - 1) & 1): stuck = False
                else:
                    a = issued[x]
                    if a < T and a < consumed[x] + ahead: stuck = False
                    c = consumed[x]
                    if c < T and c in full_ok[x]: stuck = False
            if stuck: return f"DEADLOCK t={t} issued={issued} consumed={consumed} state={state}"
        if t > 200000: return "TIMEOUT"

def main():
    rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    for mode in ('issuer', 'all'):
        bad = {}; runs = 0
        for it in range(4000):
            n = rng.choice([2, 4]); S = rng.choice([1, 2, 3, 4]); T = rng.randint(1, 24)
            pmc = rng.choice([0.0, 0.5, 0.8, 1.0])
            mc = {a for a in range(T) if rng.random() < pmc}
            r = run(n, S, T, mc, mode, rng); runs += 1
            if r: bad.setdefault(r.split()[0], []).append((n, S, T, round(pmc, 1), r[:120]))
        print(mode, runs, "runs:", {k: len(v) for k, v in bad.items()} or "all clean")
        for k, v in bad.items(): print("  e.g.", v[0])
main()
