#!/usr/bin/env python3
"""tests/hip/check_gfx90a_asm.py — the HIP lowering test: read the gfx90a assembly of the hip copy.

Compiles tests/hip/lowering_kernels.hip for one AMD target (device code only, -S; no GPU needed) and
checks, per kernel (see the kernel file for what each one is):

  * the aligned 16-byte copy uses vector global loads (global_load_dwordx4, or a buffer_load_dwordx4
    equivalent), 16-byte LDS stores (ds_write_b128, or ds_write2_b64) and s_waitcnt vmcnt;
  * no flat_ memory instructions (the copy names its address spaces) and no scratch (private) memory;
  * no byte loop in the aligned 16-byte case: a byte load whose innermost loop has no 16-byte load.
    A byte load for an edge piece inside the 16-byte chunk loop is allowed; a loop that moves one
    byte per trip is not (the full pipeline kernels also hold the walk for 1-byte-aligned tensors,
    whose chunks are single bytes by necessity, so this check reads the W = 16 kernels);
  * float boxes have no sub-dword global loads at all;
  * wavefront size 64 (gfx9 / CDNA);
  * the role pipeline (porter::role_pipeline on staged) completes its stages on LDS phase counters:
    ds_add_rtn_u32 arrivals, s_sleep in its waits, and no s_barrier after the construction's one;
  * fragment loads (porter::load_fragments) read LDS with ds_read_b32 (one per matrix) and, transposed,
    ds_read_u16 (two per matrix), never flat_;
  * the negative control (the generic staged backend's byte loop, compiled for AMD) IS reported as a
    byte loop, so the detector is known to work.

Usage: check_gfx90a_asm.py --hipcc hipcc --source lowering_kernels.hip --out dir [--arch gfx90a] -I dir ...
Exit status 0 when every check holds; otherwise 1, with one line per failed check.
"""
import argparse
import os
import re
import subprocess
import sys

BYTE_LOAD = re.compile(r"^(global|buffer|flat)_load_(ubyte|sbyte)(_d16\w*)?$")
SUBDWORD_LOAD = re.compile(r"^(global|buffer|flat)_load_(ubyte|sbyte|ushort|sshort)(_d16\w*)?$")
WIDE_LOAD = re.compile(r"^(global_load_dwordx4|buffer_load_dwordx4)$")
LDS_WIDE_STORE = re.compile(r"^(ds_write_b128|ds_write2_b64|ds_write2st64_b64)$")
FLAT = re.compile(r"^flat_(load|store|atomic)")
SCRATCH = re.compile(r"^(scratch_|buffer_store|buffer_load\w*\s.*off,\s*s\[0:3\])")
BRANCH = re.compile(r"^s_(cbranch_\w+|branch)$")


def compile_asm(args, defines=(), suffix=""):
    os.makedirs(args.out, exist_ok=True)
    asm = os.path.join(args.out, "lowering_kernels-%s%s.s" % (args.arch, suffix))
    cmd = [args.hipcc, "-std=c++17", "-O3", "-x", "hip", "--offload-arch=" + args.arch, "--cuda-device-only", "-S",
           "-o", asm, args.source] + ["-I" + d for d in args.include] + ["-D" + d for d in defines]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if res.returncode != 0:
        print(res.stdout)
        print("FAIL: compiling %s for %s: %s" % (args.source, args.arch, " ".join(cmd)))
        sys.exit(1)
    return asm


def split_functions(text):
    """name -> list of (line number, mnemonic, full line) for instructions and labels of that function."""
    funcs, cur, body = {}, None, []
    for n, line in enumerate(text.splitlines(), 1):
        m = re.match(r"^([A-Za-z_][\w.$]*):", line)
        if m and not m.group(1).startswith(".L"):
            cur, body = m.group(1), []
            funcs[cur] = body
            continue
        if cur is None:
            continue
        if line.startswith(".Lfunc_end"):
            cur = None
            continue
        s = line.split(";")[0].strip()
        if not s:
            continue
        if re.match(r"^\.L\w+:", s):
            body.append((n, ":label", s[:-1]))
        elif not s.startswith("."):
            body.append((n, s.split()[0], s))
    return funcs


def loops(body):
    """(start index, end index) of every loop: a branch back to an earlier label."""
    where = {b[2]: i for i, b in enumerate(body) if b[1] == ":label"}
    out = []
    for i, (_, mnem, s) in enumerate(body):
        if BRANCH.match(mnem):
            target = s.split()[-1]
            if target in where and where[target] < i:
                out.append((where[target], i))
    return out


def byte_loops(body):
    """Lines of byte loads whose innermost enclosing loop holds no 16-byte load."""
    ls = loops(body)
    bad = []
    for i, (n, mnem, s) in enumerate(body):
        if not BYTE_LOAD.match(mnem):
            continue
        around = [(a, b) for a, b in ls if a <= i <= b]
        if not around:
            continue
        a, b = min(around, key=lambda r: r[1] - r[0])
        if not any(WIDE_LOAD.match(body[j][1]) for j in range(a, b + 1)):
            bad.append("line %d: %s (loop of lines %d-%d has no 16-byte load)" % (n, s, body[a][0], body[b][0]))
    return bad


def kernel_metadata(text, name, key):
    """Value of `.key:` in the HSA metadata map of kernel `name` (the map's keys are sorted)."""
    m = re.search(r"\.name:\s+%s\s*\n(.*?)(?:\n\s+- \.|\n\.end_amdgpu_metadata)" % re.escape(name), text, re.S)
    if not m:
        return None
    k = re.search(r"\.%s:\s+(\S+)" % re.escape(key), m.group(1))
    return k.group(1) if k else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hipcc", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--arch", default="gfx90a")
    ap.add_argument("-I", dest="include", action="append", default=[])
    args = ap.parse_args()

    asm_path = compile_asm(args)
    text = open(asm_path).read()
    funcs = split_functions(text)
    failures = []

    def check(cond, what):
        print(("ok    " if cond else "FAIL  ") + what)
        if not cond:
            failures.append(what)

    def mnems(name):
        return [b[1] for b in funcs.get(name, [])]

    def has(name, pattern):
        return any(re.match(pattern, m) for m in mnems(name))

    hip_kernels = ["walk_box_f32_w16", "walk_box_u8_w16", "walk_bytes_w16", "pipeline_staged", "pipeline_staged_s3"]
    for k in hip_kernels + ["control_staged_u8", "fragments_b128", "roles_staged"]:
        check(k in funcs, "%s: kernel present in the %s assembly" % (k, args.arch))
    if failures:
        return 1

    for k in hip_kernels:
        check(has(k, WIDE_LOAD.pattern), "%s: 16-byte vector global loads (global_load_dwordx4)" % k)
        check(has(k, LDS_WIDE_STORE.pattern), "%s: 16-byte LDS stores (ds_write_b128)" % k)
        check(any(b[1] == "s_waitcnt" and "vmcnt" in b[2] for b in funcs[k]),
              "%s: loads complete through s_waitcnt vmcnt" % k)
        flat = [b[2] for b in funcs[k] if FLAT.match(b[1])]
        check(not flat, "%s: no flat_ memory instructions %s" % (k, flat[:3] if flat else ""))
        scratch = [b[2] for b in funcs[k] if b[1].startswith("scratch_")]
        check(not scratch and kernel_metadata(text, k, "private_segment_fixed_size") == "0",
              "%s: no scratch memory (private segment %s B)" % (k, kernel_metadata(text, k, "private_segment_fixed_size")))
        check(kernel_metadata(text, k, "wavefront_size") == "64", "%s: wavefront size 64" % k)

    # The aligned 16-byte case in isolation. (The pipeline kernels also hold the W = 1 walk that a
    # tensor aligned to 1 byte only needs; its per-byte chunk loop is expected there.)
    for k in ("walk_box_f32_w16", "walk_box_u8_w16", "walk_bytes_w16"):
        bl = byte_loops(funcs[k])
        check(not bl, "%s: no byte loop %s" % (k, bl[:2] if bl else ""))

    # Four 16-byte loads in flight per lane: no s_waitcnt vmcnt between the batch's first four load
    # sites (a wait there would mean one load at a time: LLVM 15 inserts one when a load sits behind
    # its own branch and the next one reuses its registers). Not read for walk_box_u8_w16: there the
    # edge-only blocks that assemble a 1..3-byte piece wait on their own short and byte loads.
    for k in ("walk_box_f32_w16", "walk_bytes_w16"):
        body = funcs[k]
        sites = [i for i, b in enumerate(body) if b[1] == "global_load_dwordx4"][:4]
        waits = [body[i][2] for i in range(sites[0], sites[-1]) if body[i][1] == "s_waitcnt" and "vmcnt" in body[i][2]] \
            if len(sites) == 4 else ["fewer than 4 load sites"]
        check(not waits, "%s: the batch's 4 global_load_dwordx4 issue with no vmcnt wait between them %s" % (k, waits[:2] if waits else ""))
    check(any(b[1] == "s_waitcnt" and "vmcnt(3)" in b[2] for b in funcs["walk_bytes_w16"]),
          "walk_bytes_w16: stores released one by one as their loads land (s_waitcnt vmcnt(3) .. vmcnt(0))")

    n16 = mnems("walk_box_f32_w16").count("global_load_dwordx4")
    check(n16 >= 4, "walk_box_f32_w16: the batch of 4 chunks per lane is unrolled (%d global_load_dwordx4 sites)" % n16)
    sub = [b[2] for b in funcs["walk_box_f32_w16"] if SUBDWORD_LOAD.match(b[1])]
    check(not sub, "walk_box_f32_w16: float box, no sub-dword global loads %s" % (sub[:3] if sub else ""))
    for k in ("pipeline_staged", "pipeline_staged_s3"):
        check(has(k, r"^s_barrier$"), "%s: the stage completes through s_barrier" % k)
        check(has(k, r"^ds_read"), "%s: the consumer reads the tile with ds_read (LDS, not flat)" % k)

    # The role pipeline (porter::role_pipeline on staged): FULL / EMPTY as LDS phase counters. Its
    # arrivals are LDS atomics, its waits poll with s_sleep, and the only workgroup barrier is the
    # construction's: no step of the ring meets at s_barrier. The producer's copy is the same wide one.
    k = "roles_staged"
    rm = mnems(k)
    check(rm.count("ds_add_rtn_u32") >= 3, "%s: FULL, EMPTY and role-barrier arrivals are LDS atomics (%d ds_add_rtn_u32)"
          % (k, rm.count("ds_add_rtn_u32")))
    check(rm.count("ds_add_u32") >= 3, "%s: the completing arrival advances the phase with one more ds_add_u32 (%d)" % (k, rm.count("ds_add_u32")))
    check(rm.count("s_sleep") >= 3, "%s: the EMPTY, FULL and role-barrier waits back off with s_sleep (%d)" % (k, rm.count("s_sleep")))
    check(rm.count("s_barrier") == 1, "%s: one s_barrier, the construction's; none per step (%d)" % (k, rm.count("s_barrier")))
    check(has(k, WIDE_LOAD.pattern) and has(k, LDS_WIDE_STORE.pattern),
          "%s: the producer's copy uses global_load_dwordx4 and ds_write_b128" % k)
    flat = [b[2] for b in funcs[k] if FLAT.match(b[1])]
    check(not flat, "%s: no flat_ memory instructions %s" % (k, flat[:3] if flat else ""))
    check(kernel_metadata(text, k, "wavefront_size") == "64", "%s: wavefront size 64" % k)
    # Its scratch is the construction's trap message (printf through a hostcall, when the CTA has the
    # wrong size); built without trap messages the kernel has none.
    quiet = open(compile_asm(args, ["PORTER_TRAP_MESSAGES=0"], "-no-trap-messages")).read()
    check(kernel_metadata(quiet, k, "private_segment_fixed_size") == "0",
          "%s: no scratch memory without trap messages (with them: %s B, the printf)" % (k, kernel_metadata(text, k, "private_segment_fixed_size")))

    fr = mnems("fragments_b128")
    check(fr.count("ds_read_b32") >= 8, "fragments_b128: two x4 fragments (down the columns, along the rows) as 8 ds_read_b32 (%d)"
          % fr.count("ds_read_b32"))
    check(fr.count("ds_read_u16") >= 8, "fragments_b128: x4 .trans fragment as 8 ds_read_u16 (%d)" % fr.count("ds_read_u16"))
    flat = [b[2] for b in funcs["fragments_b128"] if FLAT.match(b[1])]
    check(not flat, "fragments_b128: no flat_ memory instructions %s" % (flat[:3] if flat else ""))

    control = byte_loops(funcs["control_staged_u8"])
    check(bool(control), "control_staged_u8: the detector finds the byte-at-a-time loop %s"
          % (control[:1] if control else "(NOT FOUND: the byte-loop check has no teeth)"))

    # Quote the heart of the aligned case for the log: the batch's loads, the wait, the LDS stores.
    for k in ("walk_box_f32_w16", "walk_bytes_w16"):
        body = funcs[k]
        loads = [b for b in body if b[1] == "global_load_dwordx4"][:4]
        stores = [i for i, b in enumerate(body) if LDS_WIDE_STORE.match(b[1])][:4]
        wait = next((body[i] for i in range(stores[0], -1, -1) if body[i][1] == "s_waitcnt" and "vmcnt" in body[i][2]), None)
        print("\n%s (%s), line: instruction" % (k, args.arch))
        for b in loads + ([wait] if wait else []) + [body[i] for i in stores]:
            print("    %5d: %s" % (b[0], b[2]))
    print("\n%s: %d checks failed" % (os.path.basename(asm_path), len(failures)) if failures
          else "\n%s: all checks hold" % os.path.basename(asm_path))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
