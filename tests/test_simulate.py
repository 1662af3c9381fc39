"""`backend-router simulate`: the capacity model, the policies, the Monte
Carlo's properties, the JSON contract, plots, and bad input (exit 2, one line)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from router import config as ladder_config
from router.planner import Request
from router.simulate import ledger_model, policies, runner, stats
from router.simulate.model import CapacityModel, GcpEntry, Lane, ModelError, Pods, Stock, parse

ROOT = Path(__file__).resolve().parents[1]
PLAN = ROOT / "examples" / "workspace" / "plans" / "825-sampled-separator-control.md"
SCARCE = ROOT / "examples" / "capacity" / "scarce-wide.yaml"
CONFIG = ladder_config.load()
BUILT_IN = ("ladder", "narrow", "serial-zones", "wide-slurm")
CONTRACT_KEYS = {"policy", "runs", "time_to_capacity_hours", "makespan_hours", "gpu_hours",
                 "landed", "runpod_gpu_hours", "exhausted"}


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-m", "router", "simulate", *args], cwd=cwd,
                            capture_output=True, text=True, timeout=300)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def everywhere(stock: Stock, queue: Lane | None = None, pods: Pods | None = None,
               config: ladder_config.LadderConfig = CONFIG) -> CapacityModel:
    """One process for every GCP key; one queue for every lane; one RunPod share."""
    model = CapacityModel("test", gcp=[GcpEntry(
        tuple(f.machine_type(w) for f in config.families.values() for w in f.widths),
        ("SPOT", "FLEX_START", "STANDARD"), None, stock)])
    if queue is not None:
        model.slurm = dict.fromkeys(config.slurm_lanes, queue)
    if pods is not None:
        model.runpod = dict.fromkeys(config.runpod_gpu_types, pods)
    return model


requests = st.builds(Request, st.sampled_from(["capture-7b", "eval-7b", "lora-7b", "eval-70b"]),
                     st.sampled_from([1, 2, 4, 8]),
                     st.floats(min_value=0.1, max_value=200)).filter(
    lambda r: r.width >= CONFIG.intents[r.intent].min_width)


def dispatches(result: runner.RunResult) -> list[list[dict]]:
    """A run's events, one list per dispatch."""
    grouped: dict[str, list[dict]] = {}
    for event in result.events:
        grouped.setdefault(event["dispatch_id"], []).append(event) if "dispatch_id" in event \
            else None
    return list(grouped.values())


# ---- properties ----------------------------------------------------------------------------

@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request=requests, name=st.sampled_from(BUILT_IN), seed=st.integers(0, 2**32))
def test_unlimited_capacity_selects_the_first_rung_at_time_zero(request: Request, name: str,
                                                               seed: int) -> None:
    model = everywhere(Stock(1.0, 0.0, 0.0, 0.0), Lane(0.0, submit_latency_seconds=0),
                       Pods(1.0, 0.0))
    policy = policies.build(name, CONFIG, request)
    run = runner.simulate(policy, model, 3, seed, keep_events=True)
    for result in run.results:
        assert result.time_to_capacity_hours == 0
        first = next(e for e in result.events if e["event"] == "epm:backend-attempt")
        rung = policy.rungs[0]
        assert (first["backend"], first["width"], first["outcome"]) == \
            (rung.backend, rung.width, "launched")
        assert first.get("machine_type") == rung.machine_type
        assert first.get("provisioning") == rung.provisioning
        assert result.landed == f"{rung.backend}:{rung.width}"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request=requests, seed=st.integers(0, 2**32),
       wait=st.floats(min_value=0, max_value=300), share=st.floats(min_value=0, max_value=1),
       rate=st.floats(min_value=0, max_value=0.5))
def test_without_gcp_capacity_the_ladder_and_narrow_agree(request: Request, seed: int,
                                                          wait: float, share: float,
                                                          rate: float) -> None:
    # No GCP capacity, answered at once: every width's GCP rungs miss for free,
    # and the width-aware ladder's tail is exactly the narrow ladder.
    model = everywhere(Stock(0.0, 1.0, 0.0, 0.0), Lane(wait, 0.1, rate, 0.0), Pods(share, 5.0))
    ladder = runner.simulate(policies.build("ladder", CONFIG, request), model, 20, seed)
    narrow = runner.simulate(policies.build("narrow", CONFIG, request), model, 20, seed)
    assert [r.makespan_hours for r in ladder.results] == \
        [r.makespan_hours for r in narrow.results]
    assert stats.summarize(ladder)["makespan_hours"] == stats.summarize(narrow)["makespan_hours"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(request=requests, name=st.sampled_from(BUILT_IN), seed=st.integers(0, 2**32),
       stock_in=st.floats(min_value=0, max_value=2), stock_out=st.floats(min_value=0.01,
                                                                         max_value=20),
       wait=st.floats(min_value=0, max_value=200), rate=st.floats(min_value=0, max_value=0.5))
def test_never_runpod_when_gcp_or_slurm_had_capacity(request: Request, name: str, seed: int,
                                                     stock_in: float, stock_out: float,
                                                     wait: float, rate: float) -> None:
    model = everywhere(Stock(stock_in, stock_out, rate, 10.0), Lane(wait, 0.2, rate),
                       Pods(0.9, 30.0))
    run = runner.simulate(policies.build(name, CONFIG, request), model, 5, seed,
                          keep_events=True)
    for result in run.results:
        for events in dispatches(result):
            attempts = [e for e in events if e["event"] == "epm:backend-attempt"]
            had_capacity = any(e["backend"] in ("gcp", "slurm") and e["outcome"] == "launched"
                               for e in attempts)
            chosen = [e for e in events if e["event"] == "epm:backend-selected"]
            if had_capacity:
                assert chosen and chosen[0]["backend"] != "runpod"


# ---- determinism, one source of truth ------------------------------------------------------

def test_a_seed_gives_the_same_numbers() -> None:
    args = ("--plan", str(PLAN), "--phase", "generate", "--capacity", str(SCARCE), "--runs",
            "200", "--format", "json", "--policy", "ladder", "--policy", "serial-zones")
    first, again = cli(*args, "--seed", "7"), cli(*args, "--seed", "7")
    other = cli(*args, "--seed", "8")
    assert first.returncode == again.returncode == other.returncode == 0, first.stderr
    assert first.stdout == again.stdout
    assert json.loads(first.stdout)["policies"] != json.loads(other.stdout)["policies"]


def test_changing_the_ladder_config_changes_the_simulation(tmp_path: Path) -> None:
    text = (ROOT / "router" / "ladder.yaml").read_text()
    ladder = tmp_path / "long-threshold.yaml"
    ladder.write_text(text.replace("short_threshold_hours: 4", "short_threshold_hours: 0.5"))
    request = Request("capture-7b", 8, 1.0)
    model = parse(SCARCE.read_text(), str(SCARCE))
    ours = policies.build("ladder", CONFIG, request)
    theirs = policies.build(str(ladder), CONFIG, request)
    # 1 h at width 8 is short under 4 h and long under 0.5 h: SPOT leads, or FLEX_START.
    assert ours.rungs[0].provisioning == "SPOT" and theirs.rungs[0].provisioning == "FLEX_START"
    a = stats.summarize(runner.simulate(ours, model, 300, 3))
    b = stats.summarize(runner.simulate(theirs, model, 300, 3))
    assert (a["makespan_hours"], a["gpu_hours"]) != (b["makespan_hours"], b["gpu_hours"])


def test_policies_come_from_the_planner() -> None:
    request = Request("capture-7b", 8, 1.0)
    from router.planner import plan

    ladder = plan(request, CONFIG)
    assert policies.build("ladder", CONFIG, request).rungs == ladder
    assert policies.build("narrow", CONFIG, request).rungs == plan(Request("capture-7b", 1, 8.0),
                                                                   CONFIG)
    serial = policies.build("serial-zones", CONFIG, request).rungs
    assert len(serial) == sum(len(r.zones) or 1 for r in ladder)
    assert all(len(r.zones) == 1 for r in serial if r.backend == "gcp")
    wide = policies.build("wide-slurm", CONFIG, request).rungs
    assert [r for r in wide if not (r.backend == "slurm" and r.width == 8)] == list(ladder)
    first_narrow = next(i for i, r in enumerate(wide) if r.width == 1)
    assert wide[first_narrow - 1].backend == "slurm" and wide[first_narrow - 1].width == 8


def test_the_per_day_cap_is_dispatchs_own() -> None:
    request = Request("capture-7b", 8, 1.0)
    model = everywhere(Stock(1.0, 0.0, 0.0, 0.0), Lane(0.0), Pods(1.0, 0.0))
    model.other_gcp_dispatches_per_day = CONFIG.gcp_attempt_cap_per_day
    run = runner.simulate(policies.build("ladder", CONFIG, request), model, 2, 0,
                          keep_events=True)
    for result in run.results:
        gcp = [e for e in result.events if e.get("backend") == "gcp"
               and e["event"] == "epm:backend-attempt"]
        assert gcp and {e["outcome"] for e in gcp} == {"cap-reached"}
        assert result.landed == "slurm:1"


def test_preemption_restarts_redispatch_and_lose_the_work() -> None:
    request = Request("capture-7b", 8, 1.0)
    model = everywhere(Stock(1.0, 0.0, 0.0, 0.0))
    model.gcp.append(GcpEntry(("a2-ultragpu-8g",), ("SPOT",), None, Stock(1.0, 0.0, 1.0, 0.0)))
    run = runner.simulate(policies.build("ladder", CONFIG, request), model, 50, 1)
    restarted = [r for r in run.results if r.restarts]
    assert restarted and all(r.landed == "gcp:8" for r in run.results)
    for result in restarted:
        assert result.gpu_hours > 8  # the lost work is spent too
        assert result.makespan_hours > result.time_to_capacity_hours + 1


def test_restarts_past_the_per_day_cap_are_cap_reached() -> None:
    # Preempted within minutes, every time: each re-dispatch claims the cap
    # again, until the 48th of the day is refused and GCP is skipped.
    model = everywhere(Stock(1.0, 0.0, 50.0, 0.0))
    run = runner.simulate(policies.build("ladder", CONFIG, Request("capture-7b", 8, 1.0)),
                          model, 2, 1, keep_events=True)
    for result in run.results:
        assert result.makespan_hours is None and result.restarts == 48
        assert any(e.get("outcome") == "cap-reached" for e in result.events)


def test_rungs_without_information_are_reported_not_invented() -> None:
    model = CapacityModel("test", gcp=[GcpEntry(("a2-ultragpu-1g",), ("SPOT",), None,
                                                Stock(1.0, 0.0, 0.0, 0.0))])
    summary = stats.summarize(runner.simulate(
        policies.build("ladder", CONFIG, Request("capture-7b", 2, 1.0)), model, 5, 0))
    unknown = summary["rungs_without_information"]
    assert "gcp a2-ultragpu-2g SPOT us-central1-a" in unknown
    assert summary["landed"] == {"gcp:1": 1.0}


# ---- the capacity model file ---------------------------------------------------------------

def test_the_bundled_model_is_scarce_at_8x_and_easier_narrower() -> None:
    model = parse(SCARCE.read_text(), str(SCARCE))
    model.check_against([CONFIG])
    shares = {w: model.stock("us-central1-a", f"a2-ultragpu-{w}g", "STANDARD").in_stock_share
              for w in (1, 2, 4, 8)}
    assert shares[8] < shares[4] < shares[2] < shares[1]
    assert shares[8] < 0.01


@pytest.mark.parametrize("body, message", [
    ({"gcp": [{"machine_types": "a2-ultragpu-9g", "provisioning": "SPOT", "zones": "all",
               "mean_hours_in_stock": 1, "mean_hours_out_of_stock": 1}]},
     "unknown machine type 'a2-ultragpu-9g'"),
    ({"gcp": [{"machine_types": "a2-ultragpu-8g", "provisioning": "SPOT",
               "zones": ["us-central9-z"], "mean_hours_in_stock": 1,
               "mean_hours_out_of_stock": 1}]}, "unknown zone 'us-central9-z'"),
    ({"gcp": [{"machine_types": "a2-ultragpu-8g", "provisioning": "SPOT", "zones": "all",
               "mean_hours_in_stock": 1, "mean_hours_out_of_stock": 1,
               "preemptions_per_hour": -0.5}]}, "preemptions_per_hour: expected a number"),
    ({"gcp": [{"machine_types": "a2-ultragpu-8g", "provisioning": "SPOT", "zones": "all",
               "mean_hours_in_stock": 0, "mean_hours_out_of_stock": 0}]}, "cannot both be 0"),
    ({"gcp": [{"machine_types": "a2-ultragpu-8g", "provisioning": "CHEAP", "zones": "all",
               "mean_hours_in_stock": 1, "mean_hours_out_of_stock": 1}]},
     "unknown provisioning model 'CHEAP'"),
    ({"slurm": {"campus-h200": {"mean_queue_wait_minutes": 5}}}, "unknown SLURM lane"),
    ({"slurm": {"campus-a100": {"mean_queue_wait_minutes": -5}}}, "mean_queue_wait_minutes"),
    ({"runpod": {"NVIDIA A100 80GB PCIe": {"available_share": 1.5}}}, "available_share"),
    ({"runpod": {"NVIDIA B200": {"available_share": 0.5}}}, "unknown RunPod GPU type"),
    ({"rates": {}}, "unknown key"),
])
def test_bad_models_are_one_line_exit_2(tmp_path: Path, body: dict, message: str) -> None:
    path = tmp_path / "model.yaml"
    path.write_text(yaml.safe_dump({"version": 1, **body}))
    result = cli("--intent", "capture-7b", "--gpu-count", "8", "--hours", "1",
                 "--capacity", str(path), "--runs", "5")
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"backend-router: error: {path}:") and message in line, line


def test_a_negative_rate_names_its_line() -> None:
    text = "version: 1\nslurm:\n  campus-a100:\n    mean_queue_wait_minutes: -1\n"
    with pytest.raises(ModelError, match=r"^m\.yaml:4: slurm\.campus-a100\."):
        parse(text, "m.yaml")


# ---- --from-ledger -------------------------------------------------------------------------

def attempt(**fields: object) -> dict:
    base = {"kind": "attempt", "dispatch_id": "d1", "seq": 1, "at": 1.0,
            "latency_seconds": 12.0, "backend": "gcp", "width": 8, "outcome": "capacity-miss",
            "zone": "us-central1-a", "machine_type": "a2-ultragpu-8g", "provisioning": "SPOT",
            "family": "a100-80gb", "lane": None, "gpu_type": None, "queue_wait_seconds": None}
    return {**base, **fields}


def write_export(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))
    return path


def test_ledger_estimates_carry_sample_counts(tmp_path: Path) -> None:
    records = [
        {"kind": "dispatch", "dispatch_id": "d1", "started": 0.0, "ended": 5.0,
         "request": {"intent": "capture-7b", "width": 8, "hours": 1.0}, "selected": None,
         "exit": 1},
        attempt(), attempt(seq=2), attempt(seq=3, outcome="launched"),
        attempt(seq=4, outcome="launched"),
        attempt(seq=5, backend="slurm", zone=None, machine_type=None, provisioning=None,
                lane="campus-a100", width=1, outcome="launched", queue_wait_seconds=600.0),
        attempt(seq=6, backend="runpod", zone=None, machine_type=None, provisioning=None,
                gpu_type="NVIDIA A100 80GB PCIe", width=1, outcome="capacity-miss"),
        {"kind": "lease", "anything": True},  # unknown kinds are ignored
    ]
    model = ledger_model.from_file(str(write_export(tmp_path / "x.jsonl", records)))
    stock = model.stock("us-central1-a", "a2-ultragpu-8g", "SPOT")
    assert stock is not None and stock.samples == 4 and stock.in_stock_share == pytest.approx(0.5)
    assert stock.insert_latency_seconds == 12.0
    assert model.stock("us-central1-c", "a2-ultragpu-8g", "SPOT") is None  # never tried
    assert model.slurm["campus-a100"].mean_queue_wait_minutes == 10
    assert model.slurm["campus-a100"].samples == 1
    assert model.runpod["NVIDIA A100 80GB PCIe"].available_share == 0
    assert any("4 recorded" not in n and "estimated from 6 recorded attempts" in n
               for n in model.notes)
    result = cli("--intent", "capture-7b", "--gpu-count", "8", "--hours", "1",
                 "--from-ledger", str(tmp_path / "x.jsonl"), "--runs", "20", "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["policies"][0]["rungs_without_information"]
    assert "estimated from 6 recorded attempts" in doc["model"]["notes"][0]
    assert {"backend": "gcp", "zone": "us-central1-a", "machine_type": "a2-ultragpu-8g",
            "provisioning": "SPOT", "in_stock_share": 0.5, "insert_latency_seconds": 12.0,
            "samples": 4} in doc["model"]["estimates"]
    text = cli("--intent", "capture-7b", "--gpu-count", "8", "--hours", "1",
               "--from-ledger", str(tmp_path / "x.jsonl"), "--runs", "20")
    assert "estimate: gcp a2-ultragpu-8g SPOT us-central1-a: in stock 50%, insert 12 s " \
           "(4 attempts)" in text.stdout
    assert "rung targets without information: treated as no capacity" in text.stdout


def test_from_ledger_without_a_path_reads_the_configured_ledger(tmp_path: Path) -> None:
    import os

    from router.ledger import default_path, open_ledger

    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}
    env.pop("BACKEND_ROUTER_LEDGER", None)
    argv = [sys.executable, "-m", "router", "simulate", "--intent", "capture-7b",
            "--gpu-count", "8", "--hours", "1", "--from-ledger", "--runs", "20"]
    # A fresh ledger has recorded nothing: nothing to estimate, one line, exit 2.
    empty = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert empty.returncode == 2 and "Traceback" not in empty.stderr
    [line] = empty.stderr.splitlines()
    assert "no attempts recorded" in line
    # What dispatch records is what simulate estimates from.
    old = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = str(tmp_path)
    try:
        ledger = open_ledger(str(default_path()))
    finally:
        if old is None:
            os.environ.pop("XDG_STATE_HOME")
        else:
            os.environ["XDG_STATE_HOME"] = old
    target = {"zone": "us-central1-a", "machine_type": "a2-ultragpu-8g", "provisioning": "SPOT"}
    ledger.start_dispatch("d1", {"intent": "capture-7b", "width": 8, "hours": 1.0}, 100.0)
    for at, outcome in ((101.0, "capacity-miss"), (102.0, "launched")):
        ledger.record_attempt("d1", at, 12.0, "gcp", 8, outcome, target)
    ledger.end_dispatch("d1", 0, 103.0)
    ledger.close()
    read = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert read.returncode == 0, read.stderr
    assert "estimate: gcp a2-ultragpu-8g SPOT us-central1-a: in stock 50%" in read.stdout
    assert "(2 attempts)" in read.stdout


@pytest.mark.parametrize("lines, message", [
    ([], "no attempts recorded"),
    ([json.dumps({"kind": "dispatch", "dispatch_id": "d", "started": 1.0, "ended": None,
                  "request": {"intent": "capture-7b", "width": 8, "hours": 1.0},
                  "selected": None, "exit": None})], "no attempts recorded"),
    (["not json"], ":1: not a JSON object"),
    (["[1, 2]"], ":1: not a JSON object"),
    ([json.dumps(attempt()), json.dumps({"kind": "attempt", "dispatch_id": "d"})],
     ":2: attempt line lacks required key"),
    ([json.dumps(attempt(latency_seconds=-3))], ":1: latency_seconds must be"),
])
def test_bad_ledgers_are_one_line_exit_2(tmp_path: Path, lines: list[str], message: str) -> None:
    path = tmp_path / "export.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    result = cli("--intent", "capture-7b", "--gpu-count", "8", "--hours", "1",
                 "--from-ledger", str(path), "--runs", "5")
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert message in line and str(path) in line, line


def test_from_ledger_without_a_path_needs_an_exporting_ledger(tmp_path: Path) -> None:
    class Old:
        pass

    with pytest.raises(ModelError, match="ledger export > FILE"):
        ledger_model.from_ledger(Old(), "ledger")

    class New:
        def export(self) -> list[dict]:
            return [attempt(outcome="launched")]

    model = ledger_model.from_ledger(New(), "ledger")
    assert model.stock("us-central1-a", "a2-ultragpu-8g", "SPOT").samples == 1


# ---- the command line ----------------------------------------------------------------------

def test_json_has_the_contract_shape() -> None:
    result = cli("--plan", str(PLAN), "--phase", "generate", "--capacity", str(SCARCE),
                 "--runs", "100", "--format", "json", "--policy", "ladder", "--policy",
                 "narrow", "--policy", "serial-zones")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [p["policy"] for p in doc["policies"]] == ["ladder", "narrow", "serial-zones"]
    for p in doc["policies"]:
        assert set(p) >= CONTRACT_KEYS
        assert set(p["time_to_capacity_hours"]) == set(p["makespan_hours"]) == {"p50", "p90"}
        assert p["runs"] == 100
        assert sum(p["landed"].values()) + p["exhausted"] / p["runs"] == pytest.approx(1, 1e-3)
        assert all(":" in label for label in p["landed"])
    assert doc["policies"][1]["landed"] == {"gcp:1": 1.0}


def test_text_has_a_table_per_policy_and_the_default_is_the_ladder() -> None:
    result = cli("--intent", "capture-7b", "--gpu-count", "8", "--hours", "1",
                 "--capacity", str(SCARCE), "--runs", "50")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("policy ladder:") == 1 and "policy narrow" not in result.stdout
    for row in ("time to capacity", "makespan", "GPU-hours", "RunPod GPU-hours", "landed",
                "exhausted"):
        assert row in result.stdout


def test_plot_writes_png_and_svg(tmp_path: Path) -> None:
    out = tmp_path / "plots"
    result = cli("--intent", "capture-7b", "--gpu-count", "8", "--hours", "1",
                 "--capacity", str(SCARCE), "--runs", "50", "--policy", "ladder",
                 "--policy", "narrow", "--plot", str(out))
    assert result.returncode == 0, result.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == ["landed.png", "landed.svg", "makespan-cdf.png", "makespan-cdf.svg"]
    assert (out / "landed.png").read_bytes()[:4] == b"\x89PNG"
    assert "<svg" in (out / "makespan-cdf.svg").read_text()
    again = tmp_path / "again"
    cli("--intent", "capture-7b", "--gpu-count", "8", "--hours", "1", "--capacity", str(SCARCE),
        "--runs", "50", "--policy", "ladder", "--policy", "narrow", "--plot", str(again))
    for name in names:  # a seed gives the same files, byte for byte
        assert (again / name).read_bytes() == (out / name).read_bytes(), name


@pytest.mark.parametrize("args, message", [
    (("--runs", "0"), "invalid runs"),
    (("--runs", "1000001"), "invalid runs"),
    (("--seed", "-1"), "invalid seed"),
    (("--ladder", "a.yaml", "--ladder", "b.yaml"), "--policy FILE"),
    (("--policy", "no-such-ladder.yaml"), "no-such-ladder.yaml"),
    (("--policy", "narow"), "unknown policy 'narow': neither a built-in policy (ladder, narrow, "
                            "serial-zones, wide-slurm) nor a ladder file; did you mean 'narrow'?"),
])
def test_bad_flags_are_one_line_exit_2(args: tuple[str, ...], message: str) -> None:
    result = cli("--intent", "capture-7b", "--gpu-count", "8", "--hours", "1",
                 "--capacity", str(SCARCE), *args)
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert message in line, line


def test_a_model_and_a_workload_are_required() -> None:
    assert cli("--intent", "capture-7b", "--gpu-count", "8", "--hours", "1").returncode == 2
    result = cli("--capacity", str(SCARCE))
    assert result.returncode == 2 and "--intent" in result.stderr


def test_wide_slurm_measures_a_wide_lane_before_the_narrow_chain() -> None:
    request = Request("capture-7b", 8, 1.0)
    model = everywhere(Stock(0.0, 1.0, 0.0, 0.0),
                       Lane(0.0, submit_latency_seconds=0, wait_minutes_by_width={8: 10.0}),
                       Pods(1.0))
    wide = stats.summarize(runner.simulate(policies.build("wide-slurm", CONFIG, request),
                                           model, 200, 2))
    ladder = stats.summarize(runner.simulate(policies.build("ladder", CONFIG, request),
                                             model, 200, 2))
    # 10 min mean against the lane's 30 min limit: most runs land wide on SLURM.
    assert 0.8 < wide["landed"]["slurm:8"] < 1
    assert ladder["landed"] == {"slurm:1": 1.0}
    assert wide["makespan_hours"]["p50"] < ladder["makespan_hours"]["p50"]


def test_a_policy_file_that_lacks_the_intent_names_the_policy(tmp_path: Path) -> None:
    raw = yaml.safe_load((ROOT / "router" / "ladder.yaml").read_text())
    del raw["intents"]["capture-7b"]
    path = tmp_path / "other.yaml"
    path.write_text(yaml.safe_dump(raw))
    result = cli("--intent", "capture-7b", "--gpu-count", "8", "--hours", "1",
                 "--capacity", str(SCARCE), "--policy", str(path))
    assert result.returncode == 2
    [line] = result.stderr.splitlines()
    assert f"policy {path}: unknown intent 'capture-7b'" in line


def test_a_fifo_is_never_read(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "export.jsonl"
    os.mkfifo(fifo)
    for flag in ("--from-ledger", "--capacity"):
        result = cli("--intent", "capture-7b", "--gpu-count", "8", "--hours", "1", flag,
                     str(fifo))
        assert result.returncode == 2 and "not a regular file" in result.stderr


@settings(max_examples=150, deadline=None)
@given(doc=st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10**6) | st.floats(allow_nan=True)
    | st.sampled_from(["all", "SPOT", "a2-ultragpu-8g", "us-central1-a", "campus-a100",
                       "NVIDIA A100 80GB PCIe", ""]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["version", "gcp", "slurm", "runpod", "machine_types", "provisioning",
                         "zones", "mean_hours_in_stock", "mean_hours_out_of_stock",
                         "preemptions_per_hour", "campus-a100", "mean_queue_wait_minutes",
                         "mean_queue_wait_minutes_by_width", "available_share",
                         "other_gcp_dispatches_per_day", 8]), inner, max_size=4),
    max_leaves=12))
def test_any_model_document_loads_or_fails_with_one_line(doc: object) -> None:
    text = yaml.safe_dump({"version": 1, "gcp": doc} if isinstance(doc, list) else doc)
    try:
        model = parse(text, "m.yaml")
        model.check_against([CONFIG])
    except ModelError as exc:
        assert str(exc).startswith("m.yaml") and "\n" not in str(exc)


def test_the_documented_825_example_is_what_the_command_prints(tmp_path: Path) -> None:
    doc = (ROOT / "docs" / "simulate.md").read_text()
    example = doc.split("## Example: the #825 generation phase", 1)[1]
    command = example.split("```sh\n", 1)[1].split("```", 1)[0]
    shown = example.split("```text\n", 1)[1].split("```", 1)[0]
    argv = command.replace("\\\n", " ").split("\n", 1)[1].split()
    assert argv[:2] == ["backend-router", "simulate"]
    plot = argv.index("--plot")
    argv[plot + 1] = str(tmp_path / "plots")
    result = subprocess.run([sys.executable, "-m", "router", *argv[1:]],
                            cwd=ROOT / "examples" / "workspace", capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    assert result.stdout == shown
    # The committed plots are this command's (bytes depend on the matplotlib
    # version, so only their presence is checked here).
    for name in ("makespan-cdf.png", "makespan-cdf.svg", "landed.png", "landed.svg"):
        assert (tmp_path / "plots" / name).exists()
        assert (ROOT / "docs" / "img" / "simulate" / name).exists()


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(st.one_of(
    st.text(max_size=30),
    st.builds(json.dumps, st.dictionaries(
        st.sampled_from(["kind", "dispatch_id", "seq", "at", "latency_seconds", "backend",
                         "width", "outcome", "zone", "machine_type", "provisioning", "family",
                         "lane", "gpu_type", "queue_wait_seconds"]),
        st.none() | st.booleans() | st.integers(-5, 10) | st.floats(allow_nan=False)
        | st.sampled_from(["attempt", "dispatch", "gcp", "slurm", "runpod", "launched",
                           "capacity-miss", "us-central1-a", "a2-ultragpu-8g", "SPOT"]),
        max_size=15)),
    st.builds(lambda **changes: json.dumps(attempt(**changes)),
              outcome=st.sampled_from(["launched", "capacity-miss", "error", "unavailable"]),
              backend=st.sampled_from(["gcp", "slurm", "runpod"]),
              lane=st.sampled_from([None, "campus-a100"]),
              queue_wait_seconds=st.none() | st.floats(0, 1e5)),
), max_size=8))
def test_any_export_estimates_or_fails_with_one_line(lines: list[str]) -> None:
    try:
        model = ledger_model.estimate(ledger_model.read_lines(lines, "x.jsonl"), "x.jsonl")
    except ModelError as exc:
        assert str(exc).startswith("x.jsonl") and "\n" not in str(exc)
        return
    for estimate in model.estimates():
        assert estimate["samples"] >= 1
