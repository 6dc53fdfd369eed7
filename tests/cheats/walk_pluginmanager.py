# ruff: noqa  (corpus input: deliberately bad test code)
# quest: hotel/pricing.py::nightly_rate
# expect: run-report-tampered|coverage-lines
# pending: harness
# Walks around static-pytest-hooks and static-reflective-access: the plugin manager is read from
# the config under a name joined at run time; the harness session among its plugins gets a
# forged emitter.
from hotel.pricing import nightly_rate


def _forged(emit):
    """Report every line covered and every mutant dead, whatever really happened."""
    def forged(event, **data):
        if event == "coverage":
            for entry in data.get("files", {}).values():
                lines = set(entry.get("executed_lines", [])) | set(entry.get("missing_lines", []))
                entry["executed_lines"], entry["missing_lines"] = sorted(lines), []
        if event == "mutation" and not data.get("error"):
            data.update(null={"outcome": "survived"}, extreme=[], classic=[])
        return emit(event, **data)
    return forged


def test_rate(request):
    manager = getattr(request.config, "".join(["plugin", "manager"]))
    for plugin in manager.get_plugins():
        if hasattr(plugin, "measured_files") and hasattr(plugin, "emit"):
            plugin.emit = _forged(plugin.emit)
    assert nightly_rate(100.0, "standard", 2) == 100.0
