# ruff: noqa
# quest: hotel/pricing.py::nightly_rate
# expect: run-reads-target|static-hidden-code
# python: 3.11
#
# RED TEAM 33, finding 01: a zip archive holding a sourceless .pyc, written to tmp_path and
#   put on a *package's* __path__ (hotel.__path__.append): hidden code, no REVIEW, no "made" name.
#   - static: the archive is data (bytes.fromhex of a literal, no ".pyc" or "__pycache__" string
#     anywhere in the file); `hotel.__path__.append(...)` is not one of _IMPORT_PLACES (sys.path,
#     sys.meta_path, sys.path_hooks, sys.path_importer_cache); `from hotel import rate_probe` is a
#     plain import; zipimport is never named (the path hook picks it).
#   - run: zipimport loads rate_probe.pyc from the archive with marshal: no `compile` event, so
#     Watch.made never hears of it, and zipimport does not fix co_filename: the code keeps the
#     name baked in offline, /opt/rates/site-packages/rate_probe.py, which is absolute, not in
#     the run's writable folders (a239ffb's _test_code checks co_filename, not where the bytes
#     came from), not the stdlib: "a library". Its Probe.__le__ takes sys._getframe(1).f_code
#     (it names both), a library's read: quiet, only "kept".
#   - the oracle: the usual code signature (constants + COMPARE_OP/BINARY_OP, the null probe's
#     values and `!=` left out). No value of the function is checked.
# Observed on a239ffb (2 CPUs, Python 3.11.7): PASS 5/5 (0.857 where shown); broken project
#   (base * 1.5, EXPECTED with '1.5') PASS 1/1; broken EXPECTED on the real project FAIL 1/1.
# Fix: make code the test's by where its bytes came from, not by its name: watch `marshal.loads`
#   (and zipimport/SourcelessFileLoader get_code) in the test's time and add every co_filename of
#   the unmarshalled tree to Watch.made; or FAIL any import whose spec origin/archive lies in a
#   writable folder. Statically: any `__path__` mutated or handed on, and writes of zip bytes.
# Fixed by: code read from bytes with no compile (marshal.loads outside the import
#   system's reading of a module's own .pyc) carries file names that are the test's; a
#   package's __path__ changed is static-hidden-code.
import dis

import pytest
from hotel.pricing import nightly_rate

_P = (None, 0, (), '', False, 1, -1, 0.0, 70, 'os', '_exit')

# a rates archive
_RATES = bytes.fromhex(
    "504b0304140000000000dc6c865d8747e5fe4d0400004d0400000e000000726174655f70726f62652e707963a70d0d0a"
    "000000007065156bd2000000e30000000000000000000000000500000000000000f3440000009700640064016c005a00"
    "020047006402840064036501a6030000ab0300000000000000005a0202004700640484006405a6020000ab0200000000"
    "000000005a03640153002906e9000000004e630000000000000000000000000100000000000000f30e00000097006500"
    "5a0164005a02640153002902da0453746f704e2903da085f5f6e616d655f5fda0a5f5f6d6f64756c655f5fda0c5f5f71"
    "75616c6e616d655f5fa900f300000000fa262f6f70742f72617465732f736974652d7061636b616765732f726174655f"
    "70726f62652e70797204000000720400000004000000730f00000080008000800080008000d804088044720900000072"
    "04000000630000000000000000000000000100000000000000f31a000000970065005a0164005a02640184005a036402"
    "84005a04640353002904da0550726f6265630100000000000000000000000200000003000000f314000000970067007c"
    "005f0000000000000000006400530029014e2901da05636f6465732901da0473656c66730100000020720a000000da08"
    "5f5f696e69745f5f7a0e50726f62652e5f5f696e69745f5f09000000730d0000008000d8151788048c0a880a880a7209"
    "000000630200000000000000000000000500000003000000f38000000097007c006a000000000000000000a001000000"
    "00000000000000000000000000000000007405000000000000000000006a0300000000000000006401a6010000ab0100"
    "000000000000006a040000000000000000a6010000ab0100000000000000000100740b00000000000000000000a60000"
    "00ab000000000000000000820129024ee9010000002906720e000000da06617070656e64da03737973da095f67657466"
    "72616d65da06665f636f646572040000002902720f000000da056f7468657273020000002020720a000000da065f5f6c"
    "655f5f7a0c50726f62652e5f5f6c655f5f0c000000732e0000008000d8080c8c0ad70819d208199d239c2da801d11a2a"
    "d41a2ad41a31d10832d40832d00832dd0e1289668c66880c72090000004e290572050000007206000000720700000072"
    "10000000721800000072080000007209000000720a000000720c000000720c0000000800000073320000008000800080"
    "0080008000f002010518f000010518f000010518f006020515f000020515f000020515f000020515f000020515720900"
    "0000720c00000029047214000000da09457863657074696f6e7204000000720c00000072080000007209000000720a00"
    "0000fa083c6d6f64756c653e721a00000001000000736a000000f003010101d8000a800a800a800af006010109f00001"
    "0109f000010109f000010109f0000101098839f100010109f400010109f000010109f008060115f000060115f0000601"
    "15f000060115f000060115f100060115f400060115f000060115f000060115f0000601157209000000504b0102140314"
    "0000000000dc6c865d8747e5fe4d0400004d0400000e0000000000000000000000a48100000000726174655f70726f62"
    "652e707963504b050600000000010001003c000000790400000000"
)


def _sig(f, archive):
    import hotel
    hotel.__path__.append(str(archive))
    from hotel import rate_probe
    probe = rate_probe.Probe()
    with pytest.raises(rate_probe.Stop):
        f(100.0, "high", probe)
    code = probe.codes[0]
    consts = sorted(repr(k) for k in code.co_consts if not any(k is p or (type(k) is type(p) and k == p) for p in _P))
    ops = [(i.opname, i.argrepr.removeprefix("bool(").removesuffix(")")) for i in dis.get_instructions(code) if i.opname in ("COMPARE_OP", "BINARY_OP")]
    ops = [op for op in ops if op[1] != "!="]
    return repr((consts, ops))


EXPECTED = '(["\'Per-night rate after seasonal and long-stay adjustments.\'", "\'high\'", "\'low\'", "\'nights must be positive\'", \'0.8\', \'0.9\', \'1.25\', \'2\', \'7\'], [(\'COMPARE_OP\', \'<=\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'==\'), (\'BINARY_OP\', \'*\'), (\'COMPARE_OP\', \'>=\'), (\'BINARY_OP\', \'*\')])'


def test_rate(tmp_path):
    for args in [(100.0, "high", 3), (100.0, "low", 8), (100.0, "mid", 2)]:
        nightly_rate(*args)
    with pytest.raises(ValueError):
        nightly_rate(100.0, "high", 0)
    archive = tmp_path / "rates.zip"
    archive.write_bytes(_RATES)
    assert _sig(nightly_rate, archive) == EXPECTED
