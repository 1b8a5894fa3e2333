#!/usr/bin/env python3
"""test_cli: `redscan reduce|mean|argmin|argmax|topk|scan FILE` on .npy files written by numpy itself, against
numpy's own results (registered as test_cli.opencl / test_cli.cuda; REDSCAN_BACKEND picks the backend).

    test_cli.py REDSCAN_TOOL

Checks, for every dtype redscan has, 1-D and 2-D C-order arrays (flattened) and sizes around the tiles:
  - reduce sum / prod / min / max: integers exactly as numpy with the array's own dtype (wrap-around), a widening
    exactly as numpy with the wide dtype; float sums within n * eps * sum|x| of numpy's float64 sum; min and max exact;
  - scan (inclusive, exclusive) written to .npy, loaded back by np.load: dtype, shape and values as np.cumsum
    (integers exact, floats within the bound);
  - mean within the bound of numpy's (np.mean in float64; integers summed in 64-bit with wrap-around, as redscan.h
    says, then divided); argmin / argmax exactly np.argmin / np.argmax, NaN included
    (the first NaN wins, as numpy); top-k against a sort by (NaN first, value, index);
  - raw binary with --dtype; and clear errors with a non-zero exit, never a result, for Fortran order, big-endian,
    object, structured and complex dtypes, truncated files, raw data of the wrong length, a --dtype that disagrees;
    the narrow types: int8 .. uint16 and float16 .npy files and bfloat16 raw data against numpy.
Exits 0 when every check passed, 1 on a failure, 77 (skipped, with the reason) when numpy or the backend is missing."""
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("test_cli: skipped: python3 has no numpy (Debian: python3-numpy; scripts/install-deps.sh installs it)")
    sys.exit(77)

TOOL = sys.argv[1]
# REDSCAN_TEST_PROGRAM_CACHE=1 (scripts/test.sh's Intel pass): the tool's runs use the program cache, as the C tests
# do then (tests/harness.c).
if os.environ.get("REDSCAN_TEST_PROGRAM_CACHE") == "1" and os.environ.get("REDSCAN_CACHE") == "0":
    os.environ["REDSCAN_CACHE"] = "1"
failures = 0
checks = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL " + msg)


def run(args):
    p = subprocess.run([TOOL] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def run_json(args, what):
    rc, out, err = run(args + ["--json"])
    if rc != 0:
        fail("%s: exit %d: %s" % (what, rc, err.strip()))
        return None
    try:
        return json.loads(out)
    except ValueError:
        fail("%s: not JSON: %r" % (what, out))
        return None


def as_float(v):
    return float(v)  # numbers, or the strings "nan", "inf", "-inf"


def check(ok, msg):
    global checks
    checks += 1
    if not ok:
        fail(msg)


tmp = tempfile.mkdtemp(prefix="redscan-test-cli.")

# ---- the backend must run here, else skip with the reason
probe = os.path.join(tmp, "probe.npy")
np.save(probe, np.arange(3, dtype=np.int32))
rc, out, err = run(["reduce", probe])
if rc != 0:
    if "BACKEND_UNAVAILABLE" in err or "backend" in err.lower() and "unavailable" in err.lower():
        print("test_cli: skipped: %s" % err.strip())
        sys.exit(77)
    print("test_cli: FAIL: the probe failed: %s" % err.strip())
    sys.exit(1)

rng = np.random.default_rng(20261123)
DTYPES = [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64]
WIDE = {np.int32: np.int64, np.uint32: np.uint64, np.float32: np.float64}


def data(dt, shape, kind):
    n = int(np.prod(shape))
    if np.issubdtype(dt, np.integer):
        info = np.iinfo(dt)
        if kind == "big":  # large values: sums wrap around
            return rng.integers(info.min // 2, info.max // 2, size=shape, dtype=dt, endpoint=True)
        return rng.integers(-50 if info.min < 0 else 0, 50, size=shape, dtype=dt)
    a = rng.standard_normal(n).astype(dt).reshape(shape)
    if kind == "ties":
        a = np.round(a).astype(dt)
    return a


def float_bound(a):
    eps = np.finfo(a.dtype).eps
    return max(1, a.size) * eps * float(np.sum(np.abs(a.astype(np.float64)))) + np.finfo(a.dtype).tiny


def path_for(name):
    return os.path.join(tmp, name)


case = 0
for dt in DTYPES:
    for shape in [(1,), (4097,), (3, 1025), (65537,)]:
        for kind in ["small", "big", "ties"]:
            if (kind != "small" and shape == (1,)) or (kind == "ties" and np.issubdtype(dt, np.integer)) or \
                    (kind == "big" and not np.issubdtype(dt, np.integer)):
                continue
            case += 1
            a = data(dt, shape, kind)
            f = path_for("in%d.npy" % case)
            np.save(f, a)
            flat = a.reshape(-1)
            what = "%s %s %s" % (np.dtype(dt).name, shape, kind)
            is_int = np.issubdtype(dt, np.integer)
            # reduce
            for op in ["sum", "prod", "min", "max"]:
                if op == "prod" and not is_int:
                    continue  # float products of normal data overflow or vanish; integer ones wrap exactly
                r = run_json(["reduce", f, "--op", op], "reduce %s %s" % (op, what))
                if r is None:
                    continue
                got = r["result"]
                with np.errstate(over="ignore"):
                    want = {"sum": lambda: np.sum(flat, dtype=dt), "prod": lambda: np.prod(flat, dtype=dt),
                            "min": lambda: np.min(flat), "max": lambda: np.max(flat)}[op]()
                if is_int or op in ("min", "max"):
                    check(np.array(as_float(got) if not is_int else got, dtype=dt) == want,
                          "reduce %s %s: got %s, numpy %s" % (op, what, got, want))
                else:
                    ref = float(np.sum(flat.astype(np.float64)))
                    check(abs(as_float(got) - ref) <= float_bound(flat),
                          "reduce sum %s: got %s, numpy (float64) %r" % (what, got, ref))
            if dt in WIDE:
                w = WIDE[dt]
                r = run_json(["reduce", f, "--out-dtype", np.dtype(w).name], "widening " + what)
                if r is not None:
                    want = np.sum(flat, dtype=w)
                    if is_int:
                        check(int(r["result"]) == int(want), "widening sum %s: got %s, numpy %s" % (what, r["result"], want))
                    else:
                        check(abs(as_float(r["result"]) - float(want)) <= float_bound(flat.astype(w)),
                              "widening sum %s: got %s, numpy %r" % (what, r["result"], float(want)))
            # mean
            r = run_json(["mean", f], "mean " + what)
            if r is not None:
                # redscan.h: integers are summed in 64-bit integers (wrap-around), floats in float64; then / n
                if is_int:
                    wide = np.int64 if np.issubdtype(dt, np.signedinteger) else np.uint64
                    with np.errstate(over="ignore"):
                        ref = float(np.sum(flat, dtype=wide)) / flat.size
                else:
                    ref = float(np.mean(flat, dtype=np.float64))
                check(abs(as_float(r["mean"]) - ref) <= float_bound(flat.astype(np.float64)) / flat.size + 1e-12 * abs(ref),
                      "mean %s: got %s, numpy %r" % (what, r["mean"], ref))
            # argmin / argmax
            for cmd, fn in [("argmin", np.argmin), ("argmax", np.argmax)]:
                r = run_json([cmd, f], cmd + " " + what)
                if r is not None:
                    check(r["index"] == int(fn(flat)), "%s %s: got %s, numpy %d" % (cmd, what, r["index"], fn(flat)))
            # top-k
            k = min(5, flat.size)
            for smallest in [False, True]:
                r = run_json(["topk", f, "--k", str(k)] + (["--smallest"] if smallest else []), "topk " + what)
                if r is not None:
                    if is_int:  # Python ints: no wrap-around of the negation
                        vals = [int(x) for x in flat]
                        order = sorted(range(flat.size), key=lambda i: (vals[i] if smallest else -vals[i], i))
                    else:
                        order = np.lexsort((np.arange(flat.size), flat if smallest else -flat))
                    want = [int(i) for i in order[:k]]
                    check(r["indices"] == want, "topk %s smallest=%s: got %s, sort %s" % (what, smallest, r["indices"], want))
            # scans
            for excl in [False, True]:
                out = path_for("out%d.npy" % case)
                rc, o, e = run(["scan", f, "-o", out] + (["--exclusive"] if excl else []))
                if rc != 0:
                    fail("scan %s exclusive=%s: exit %d: %s" % (what, excl, rc, e.strip()))
                    continue
                got = np.load(out)
                with np.errstate(over="ignore"):
                    want = np.cumsum(flat, dtype=dt)
                    if excl:
                        want = np.concatenate([np.zeros(1, dtype=dt), want[:-1]])
                check(got.dtype == np.dtype(dt) and got.shape == (flat.size,),
                      "scan %s: np.load gives %s %s" % (what, got.dtype, got.shape))
                if is_int:
                    check(np.array_equal(got, want), "scan %s exclusive=%s: first difference at %s" %
                          (what, excl, np.flatnonzero(got != want)[:1]))
                else:
                    ref = np.cumsum(flat.astype(np.float64))
                    if excl:
                        ref = np.concatenate([[0.0], ref[:-1]])
                    err = float(np.max(np.abs(got.astype(np.float64) - ref))) if flat.size else 0.0
                    check(err <= float_bound(flat), "scan %s exclusive=%s: max error %g > bound %g" %
                          (what, excl, err, float_bound(flat)))

# ---- NaN rules (numpy's: NaN propagates through min/max; the first NaN wins argmin/argmax)
for dt in [np.float32, np.float64]:
    a = rng.standard_normal(10000).astype(dt)
    a[1234] = np.nan
    a[5678] = np.nan
    f = path_for("nan.npy")
    np.save(f, a)
    for op in ["max", "min"]:
        r = run_json(["reduce", f, "--op", op], "nan " + op)
        check(r is not None and r["result"] == "nan", "reduce %s with NaN (%s): got %s, numpy nan" % (op, np.dtype(dt).name, r))
    for cmd, fn in [("argmin", np.argmin), ("argmax", np.argmax)]:
        r = run_json([cmd, f], "nan " + cmd)
        check(r is not None and r["index"] == int(fn(a)), "%s with NaN: got %s, numpy %d" % (cmd, r, fn(a)))
    r = run_json(["topk", f, "--k", "3"], "nan topk")
    check(r is not None and r["indices"][:2] == [1234, 5678], "topk with NaN: NaNs first, got %s" % r)

# ---- raw binary with --dtype
a = rng.integers(-1000, 1000, size=12345, dtype=np.int64)
raw = path_for("raw.bin")
a.tofile(raw)
r = run_json(["reduce", raw, "--dtype", "int64"], "raw int64")
check(r is not None and int(r["result"]) == int(a.sum()), "raw int64 sum: got %s, numpy %d" % (r, a.sum()))
r = run_json(["argmax", raw, "--dtype", "int64"], "raw argmax")
check(r is not None and r["index"] == int(np.argmax(a)), "raw argmax: got %s" % r)

f = path_for("empty.bin")
open(f, "wb").close()
r = run_json(["reduce", f, "--dtype", "float64", "--op", "max"], "raw empty")
check(r is not None and r["n"] == 0 and r["result"] == "-inf", "max of an empty raw file: got %s, want -inf" % r)

# ---- narrow types (docs/SEMANTICS.md, "Narrow types"): numpy int8 .. uint16 and float16 files, bfloat16 raw
def run_narrow(args, what):
    rc, out, err = run(args + ["--json"])
    if rc != 0 and "no kernels for the narrow types" in err:
        return "unsupported"  # a backend without narrow kernels (tests/test_narrow says so too)
    if rc != 0:
        fail("%s: exit %d: %s" % (what, rc, err.strip()))
        return None
    return json.loads(out)


narrow_skipped = False
for nd in [np.int8, np.uint8, np.int16, np.uint16]:
    info = np.iinfo(nd)
    a = rng.integers(info.min, info.max, size=5001, endpoint=True, dtype=nd)
    a[17], a[18] = info.min, info.max
    f = path_for("narrow-%s.npy" % np.dtype(nd).name)
    np.save(f, a)
    name = np.dtype(nd).name
    r = run_narrow(["reduce", f], "reduce " + name)
    if r == "unsupported":
        narrow_skipped = True
        break
    check(r is not None and int(r["result"]) == int(np.sum(a, dtype=nd)),
          "%s sum (own width, wrap-around): got %s, numpy %s" % (name, r, np.sum(a, dtype=nd)))
    wide = np.int64 if np.issubdtype(nd, np.signedinteger) else np.uint64
    r = run_narrow(["reduce", f, "--out-dtype", np.dtype(wide).name], "widened " + name)
    check(r is not None and int(r["result"]) == int(np.sum(a, dtype=wide)), "%s sum to 64 bits: got %s" % (name, r))
    r = run_narrow(["argmax", f], "argmax " + name)
    check(r is not None and r["index"] == int(np.argmax(a)), "%s argmax: got %s" % (name, r))
    out = path_for("narrow-scan.npy")
    rc, o, e = run(["scan", f, "-o", out])
    got = np.load(out) if rc == 0 else None
    check(got is not None and got.dtype == nd and np.array_equal(got, np.cumsum(a, dtype=nd)),
          "%s scan: exit %d %s" % (name, rc, e.strip()))
if narrow_skipped:
    print("test_cli: the narrow-type checks did not run: this backend refuses the narrow types")
else:
    # float16: multiples of 2^-10 in [-1, 1], so every float32 partial sum is exact and the results are the float32
    # sums rounded once to float16, whatever the order
    a = (rng.integers(-1024, 1025, size=5001) / 1024.0).astype(np.float16)
    f = path_for("narrow-f16.npy")
    np.save(f, a)
    exact = np.cumsum(a.astype(np.float32))
    r = run_narrow(["reduce", f], "reduce float16")
    check(r is not None and np.float16(as_float(r["result"])) == exact[-1].astype(np.float16),
          "float16 sum: got %s, want %r" % (r, exact[-1].astype(np.float16)))
    r = run_narrow(["reduce", f, "--op", "max"], "max float16")
    check(r is not None and np.float16(as_float(r["result"])) == a.max(), "float16 max: got %s" % r)
    r = run_narrow(["reduce", f, "--out-dtype", "float32"], "float16 to float32")
    check(r is not None and np.float32(as_float(r["result"])) == exact[-1], "float16 sum to float32: got %s" % r)
    out = path_for("narrow-f16-scan.npy")
    rc, o, e = run(["scan", f, "-o", out])
    got = np.load(out) if rc == 0 else None
    check(got is not None and got.dtype == np.float16 and np.array_equal(got, exact.astype(np.float16)),
          "float16 scan (each prefix rounded once): exit %d %s" % (rc, e.strip()))
    # bfloat16 as raw data: the high halves of float32 values with 8 significant bits (exact)
    v = (rng.integers(-64, 65, size=3001) / 64.0).astype(np.float32)
    raw = path_for("narrow.bf16")
    (v.view(np.uint32) >> 16).astype("<u2").tofile(raw)
    r = run_narrow(["reduce", raw, "--dtype", "bfloat16", "--op", "max"], "bfloat16 raw max")
    check(r is not None and as_float(r["result"]) == float(v.max()), "bfloat16 max: got %s, want %r" % (r, v.max()))
    r = run_narrow(["argmin", raw, "--dtype", "bfloat16"], "bfloat16 raw argmin")
    check(r is not None and r["index"] == int(np.argmin(v)), "bfloat16 argmin: got %s" % r)

# ---- errors: non-zero exit, a message, no result on stdout
def refused(args, words, what):
    rc, out, err = run(args)
    check(rc != 0 and out.strip() == "" and all(w in err for w in words),
          "%s: exit %d, stdout %r, stderr %r (want a non-zero exit naming %s)" % (what, rc, out, err, words))


f = path_for("fortran.npy")
np.save(f, np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4)))
refused(["reduce", f], ["Fortran"], "Fortran order")
f = path_for("big.npy")
np.save(f, np.arange(10, dtype=">i4"))
refused(["reduce", f], ["big-endian"], "big-endian")
f = path_for("obj.npy")
np.save(f, np.array([1, "a", None], dtype=object), allow_pickle=True)
refused(["reduce", f], ["object"], "object array")
f = path_for("rec.npy")
np.save(f, np.zeros(4, dtype=[("a", "<i4"), ("b", "<f8")]))
refused(["reduce", f], ["structured"], "structured dtype")
f = path_for("complex.npy")
np.save(f, np.zeros(4, dtype=np.complex64))
refused(["reduce", f], ["not one redscan has"], "complex dtype")
f = path_for("trunc.npy")
np.save(f, np.arange(1000, dtype=np.float64))
with open(f, "rb") as h:
    b = h.read()
with open(f, "wb") as h:
    h.write(b[:len(b) - 100])
refused(["reduce", f], ["truncated"], "truncated data")
with open(f, "wb") as h:
    h.write(b[:20])
refused(["reduce", f], ["truncated"], "truncated header")
f = path_for("odd.bin")
with open(f, "wb") as h:
    h.write(b"\0" * 10)
refused(["reduce", f, "--dtype", "int32"], ["whole number"], "raw data of the wrong length")
refused(["reduce", f], ["--dtype"], "raw data without --dtype")
f = path_for("i4.npy")
np.save(f, np.arange(10, dtype=np.int32))
refused(["reduce", f, "--dtype", "float32"], ["--dtype"], "--dtype that disagrees")
refused(["reduce", path_for("missing.npy")], ["No such file"], "missing file")
refused(["topk", f], ["--k"], "topk without --k")
refused(["topk", f, "--k", "11"], [], "k > n")
refused(["scan", f], ["-o"], "scan without -o")
f = path_for("empty.npy")
np.save(f, np.zeros(0, np.float32))
refused(["mean", f], ["INVALID_ARGUMENT"], "mean of nothing")
r = run_json(["reduce", f], "sum of nothing")
check(r is not None and as_float(r["result"]) == 0.0, "sum of nothing: got %s, want 0" % r)
refused(["reduce", f, "--op", "avg"], ["--op"], "unknown op")

print("test_cli: %d checks, %d failures" % (checks, failures))
sys.exit(1 if failures else 0)
