# cluster_ring_model_per_warp.py — a model of the CTA-collective cluster-multicast tma ring as of
# session 45 (porter/tma/protocol.hpp, CLUSTER MULTICAST): per-warp releases arriving on every
# CTA's EMPTY (count warps x CTAs), thread 0's EMPTY wait before each refill, FULL with transaction
# bytes, multicast / own / thread-store-fallback copies (a CTA barrier before and after the
# stores), run_pipeline's refill distance D, random delays. It reports a read of a stage that a
# refill overwrote, a parity wait that aliases, or a deadlock.
# usage: python3 cluster_ring_model_per_warp.py SEED CASES         (session 45: 1 5000 -> bad 0)
#        MUT=issuer|nobar|skip python3 ... 1 3000                   (each broken form: bad > 0)
#   issuer: only the issuing CTA's thread 0 waits; nobar: no barrier before fallback stores;
#   skip: one warp's arrival on one CTA is missing.
# Written by the review helper of session 45; pure Python, no dependencies.
import random, sys, os
MUT=os.environ.get('MUT','')

def program(T, S, D):
    ops = []
    if S == 1 or D == 0:
        for i in range(T):
            ops += [('acq', i), ('copy', i), ('commit', i), ('wait', i), ('rel', i)]
        return ops
    issued = 0
    while issued < T and issued < D:
        ops += [('acq', issued), ('copy', issued), ('commit', issued)]; issued += 1
    for i in range(T):
        ops.append(('wait', i))
        if issued < T and issued < i + 1 + D:  # run_pipeline: one refill per step
            ops += [('acq', issued), ('copy', issued), ('commit', issued)]; issued += 1
        ops.append(('rel', i))
    return ops

def run(C, W, S, D, T, rng, kinds):
    ops = program(T, S, D)
    pc = [[0]*W for _ in range(C)]
    full = [[dict(pending=1, tx=0, done=0) for _ in range(S)] for _ in range(C)]
    empty_cnt = [[0]*S for _ in range(C)]
    count = W * C
    released = [[[-1]*S for _ in range(W)] for _ in range(C)]  # highest pass released per warp
    msgs = []
    t = 0
    idle = 0
    bar = [dict(gen=0, arrived=set()) for _ in range(C)]
    wbar = [[None]*W for _ in range(C)]  # barrier generation the warp waits on
    sub = [[0]*W for _ in range(C)]       # sub-step within a copy op (fallback stages)
    landed = [[dict() for _ in range(S)] for _ in range(C)]  # stage -> pass -> boxes landed
    def deliver(kind, tgt, payload): msgs.append((t + rng.randint(1, rng.choice([2, 8, 40])), kind, tgt, payload))
    def war(y, s, p, who):
        for w in range(W):
            if released[y][w][s] < p - 1:
                return f"RACE: {who} writes CTA {y} stage {s} pass {p} while warp {w} released only {released[y][w][s]}"
    def full_check(y, s):
        f = full[y][s]
        if f['pending'] == 0 and f['tx'] == 0:
            f['done'] += 1; f['pending'] = 1
    while True:
        t += 1
        due = [m for m in msgs if m[0] <= t]; msgs[:] = [m for m in msgs if m[0] > t]
        prog = bool(due)
        for _, kind, y, pl in due:
            if kind == 'arr':
                empty_cnt[y][pl] += 1
            else:
                s, p = pl
                if full[y][s]['done'] != p:
                    return f"FULL phase mismatch: data of pass {p} lands in CTA {y} stage {s} at phase {full[y][s]['done']}"
                full[y][s]['tx'] -= 1; full_check(y, s)
        units = [(x, w) for x in range(C) for w in range(W)]
        rng.shuffle(units)
        for x, w in units:
            if rng.random() < 0.5: continue
            if pc[x][w] >= len(ops): continue
            op, a = ops[pc[x][w]]
            s, p = a % S, a // S
            if op == 'acq':
                if w == 0 and p >= 1 and not (MUT=='issuer' and a % C != x):
                    done = empty_cnt[x][s] // count
                    if (done & 1) == ((p - 1) & 1): continue  # still waiting
                    if done != p: return f"EMPTY alias: CTA {x} acquire pass {p} saw {done} phases done"
                pc[x][w] += 1; prog = True
            elif op == 'copy':
                k0, k1 = kinds[a][x]  # box0: 'mc' or 'fb' ; box1: 'own' or 'fb'
                st = sub[x][w]
                # sequence: box0 then box1; fallback = barrier, store, barrier
                seq = []
                for k in (k0, k1): seq += ((['store', 'bar'] if MUT=='nobar' else ['bar', 'store', 'bar']) if k == 'fb' else [k])
                if st >= len(seq):
                    sub[x][w] = 0; pc[x][w] += 1; prog = True; continue
                item = seq[st]
                if item == 'bar':
                    b = bar[x]
                    if wbar[x][w] is None:
                        wbar[x][w] = b['gen']; b['arrived'].add(w)
                        if len(b['arrived']) == W: b['gen'] += 1; b['arrived'] = set()
                        prog = True
                    if b['gen'] > wbar[x][w]:
                        wbar[x][w] = None; sub[x][w] += 1; prog = True
                    continue
                if item == 'store':
                    e = war(x, s, p, f"thread stores of CTA {x} warp {w}")
                    if e: return e
                elif item == 'mc' and w == 0:
                    full[x][s]['tx'] += 1
                    if a % C == x:
                        for y in range(C):
                            e = war(y, s, p, f"multicast by CTA {x}")
                            if e: return e
                            deliver('data', y, (s, p))
                elif item == 'own' and w == 0:
                    full[x][s]['tx'] += 1
                    e = war(x, s, p, f"own copy of CTA {x}")
                    if e: return e
                    deliver('data', x, (s, p))
                sub[x][w] += 1; prog = True
            elif op == 'commit':
                if w == 0:
                    full[x][s]['pending'] -= 1; full_check(x, s)
                pc[x][w] += 1; prog = True
            elif op == 'wait':
                d = full[x][s]['done']
                if (d & 1) == (p & 1): continue
                if d != p + 1: return f"FULL alias: CTA {x} warp {w} wait pass {p} saw {d} phases"
                pc[x][w] += 1; prog = True
            elif op == 'rel':
                released[x][w][s] = p
                for y in range(C):
                    if MUT=='skip' and W>1 and w==W-1 and y==C-1: continue
                    deliver('arr', y, s)
                pc[x][w] += 1; prog = True
        if all(pc[x][w] >= len(ops) for x in range(C) for w in range(W)): return None
        idle = 0 if (prog or msgs) else idle + 1
        if idle > 200:
            return f"possible deadlock at t={t}: pcs={[[ops[pc[x][w]] if pc[x][w]<len(ops) else 'end' for w in range(W)] for x in range(C)]}"

def main(seed, n):
    rng = random.Random(seed)
    bad = 0
    for i in range(n):
        C = rng.choice([2, 3, 4]); W = rng.choice([1, 2, 3]); S = rng.choice([1, 2, 3, 4]);
        D = rng.randint(0, S - 1) if S > 1 else 0
        T = rng.randint(1, 14)
        kinds = []
        for a in range(T):
            k0 = rng.choice(['mc', 'mc', 'fb'])
            kinds.append([(k0, rng.choice(['own', 'own', 'fb'])) for _ in range(C)])
        # deadlock false positives: rerun with no skipping is not modelled; the 0.5 skip + prog flag
        r = run(C, W, S, D, T, rng, kinds)
        if r:
            bad += 1
            print(seed, i, dict(C=C, W=W, S=S, D=D, T=T), r); 
            if bad > 5: break
    print("done", n, "bad", bad)

main(int(sys.argv[1]), int(sys.argv[2]))
