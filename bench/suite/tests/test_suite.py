"""The scenario suite: its draw, its halves, its configs, the expert's pick, the verdicts,
and a real Dask cluster of worker processes running the harness."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest
from alphad_ns3.run import default_program
from alphad_ns3.scenario import RunSpec, Scenario
from alphad_ns3.sweep import execute

from bench.suite import ablations, null, picks, report, runs
from bench.suite.__main__ import main
from bench.suite.campaign import (
    GRID,
    TUNE_SEED,
    Campaign,
    best_static,
    row_key,
    supersede,
    writes_digest,
)
from bench.suite.runs import parse_config, spec, split_configs
from bench.suite.scenarios import (
    DISTRIBUTION,
    N_EXTENSION,
    N_PRIORITY,
    N_SCENARIOS,
    PRIORITY_CLASSES,
    PRIORITY_SEED,
    STEADY,
    draw,
    suite,
)


def test_the_draw_is_reproducible_and_covers_the_distribution() -> None:
    a, b = draw(), draw()
    assert a == b and len(a) == N_SCENARIOS
    assert draw(seed=7) != a
    d = DISTRIBUTION
    for s in a:
        assert d["leaves"][0] <= s.leaves <= d["leaves"][1]
        assert d["servers"][0] <= s.servers <= d["servers"][1]
        assert d["spines"][0] <= s.spines <= d["spines"][1]
        assert d["classes"][0] <= s.classes <= d["classes"][1]
        assert d["load"][0] <= s.load <= d["load"][1]
        assert 5 * 1024 <= s.buffer_per_port_per_gbps <= 20 * 1024
        assert all(0.25 <= x <= 8 for x in s.alphas) and len(s.alphas) == s.classes
        assert set(s.burst_classes) <= set(range(s.classes))
        s.scenario(1)  # the harness's own validation
    for field, values in (("sched", {"rr", "sp"}), ("tcp", {"cubic", "dctcp"}),
                          ("cdf", {"websearch", "datamining"})):
        assert {getattr(s, field) for s in a} == values
    assert any(not s.burst_classes for s in a)
    assert any(s.one_burst_class for s in a)
    assert any(s.phases for s in a) and any(not s.phases for s in a)


def test_dctcp_hosts_hold_at_most_a_leaf_buffer_and_a_bdp() -> None:
    for s in draw():
        argv = spec(s, parse_config("dt"), 1).argv("prog", "out")
        if s.tcp == "cubic":
            assert s.snd_buf == 0 and not any(a.startswith("--sndBuf") for a in argv)
            continue
        leaf = s.buffer_per_port_per_gbps * (s.servers + s.spines)
        assert leaf < s.snd_buf <= leaf + 1e9 / 8 * 80e-6
        assert f"--sndBuf={s.snd_buf}" in argv


def test_halves_split_by_hash_and_are_disjoint() -> None:
    dev, ev = suite("dev"), suite("eval")
    hashed = [s for s in dev if s.name.startswith("s")]
    assert len(hashed) == len(ev) == N_SCENARIOS // 2
    assert not {s.name for s in dev} & {s.name for s in ev}
    assert [s.name for s in suite("s03,s01,d02")] == ["s01", "s03", "d02"]
    with pytest.raises(ValueError, match="s99"):
        suite("s99")


def test_the_extension_is_development_data_with_dctcp_and_data_mining_sizes() -> None:
    ext = suite("extension")
    assert len(ext) == N_EXTENSION and {s.half for s in ext} == {"dev"}
    assert {(s.tcp, s.cdf) for s in ext} == {("dctcp", "datamining")}
    assert ext == [s for s in suite("dev") if s.name.startswith("d")]
    # fixing a field leaves the draw of every other field as it was
    free, fixed = draw(7, 6), draw(7, 6, tcp="dctcp", cdf="datamining")
    assert [dataclasses.replace(s, tcp="dctcp", cdf="datamining") for s in free] == fixed
    # everything but the fixed fields follows the distribution: more than one of each
    assert len({s.sched for s in ext}) == 2 and len({s.classes for s in ext}) > 2


def test_the_priority_extension_is_static_strict_priority_dctcp_with_few_classes() -> None:
    ext = suite("priority")
    assert len(ext) == N_PRIORITY and {s.half for s in ext} == {"dev"}
    assert {(s.tcp, s.sched, s.phases) for s in ext} == {("dctcp", "sp", "")}
    assert {s.classes for s in ext} <= set(range(PRIORITY_CLASSES[0], PRIORITY_CLASSES[1] + 1))
    assert ext == [s for s in suite("dev") if s.name.startswith("p")]
    assert not {s.name for s in ext} & {s.name for s in suite("eval")}
    # fixing sched and the traffic leaves the draw of every other field as it was
    free, fixed = draw(7, 6), draw(7, 6, sched="sp", static=True)
    assert [dataclasses.replace(s, sched="sp", phases="") for s in free] == fixed
    assert any(s.phases for s in free)  # the fixing did something
    # the rest still follows the distribution: more than one flow-size distribution
    assert len({s.cdf for s in draw(PRIORITY_SEED, 12, sched="sp", static=True)}) == 2


def test_a_config_list_splits_outside_brackets() -> None:
    assert split_configs("dt,auto9[margin=1,hold=8]@1s,,auto18@100ms") == [
        "dt", "auto9[margin=1,hold=8]@1s", "auto18@100ms"]
    assert split_configs("static:4,0.5,dt,static:16,1") == ["static:4,0.5", "dt", "static:16,1"]
    assert split_configs("static:16,dt,dt") == ["static:16,dt", "dt"]
    assert split_configs("static:4,auto@1s") == ["static:4", "auto@1s"]  # refused by parse
    c = parse_config(split_configs("auto9[margin=1,hold=8]@1s")[0])
    assert c.params == (("margin", 1.0), ("hold", 8.0)) and c.interval_s == 1.0


def test_configs_parse_and_become_runs(tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    sc = next(s for s in draw() if s.one_burst_class)
    c = parse_config("auto[hold=0.5]@100ms")
    assert (c.kind, c.scheme, c.interval_s, c.params) == ("alphad", "auto", 0.1, (("hold", 0.5),))
    r = spec(sc, c, 1)
    assert r.scheme == "alphad" and r.alphad["scheme_params"] == {"hold": 0.5}
    assert [p["alpha"] for p in r.alphad["priorities"]] == list(sc.alphas)
    st = spec(sc, parse_config("static:16,0.25"), 101)
    b = sc.burst_classes[0]
    assert st.alphas[b] == 16 and all(a == 0.25 for i, a in enumerate(st.alphas) if i != b)
    two = next(s for s in draw() if len(s.burst_classes) == 2)  # every burst class at burst
    st = spec(two, parse_config("static:4,0.5"), 1)
    assert [a for c, a in enumerate(st.alphas) if c in two.burst_classes] == [4, 4]
    assert all(a == 0.5 for c, a in enumerate(st.alphas) if c not in two.burst_classes)
    st = spec(two, parse_config("static:16,dt"), 1)  # the others keep the operator's alphas
    assert [a if c in two.burst_classes else None for c, a in enumerate(st.alphas)] == \
        [16 if c in two.burst_classes else None for c in range(two.classes)]
    assert [a for c, a in enumerate(st.alphas) if c not in two.burst_classes] == \
        [a for c, a in enumerate(two.alphas) if c not in two.burst_classes]
    none = next(s for s in draw() if not s.burst_classes)
    with pytest.raises(ValueError, match="no burst class"):
        spec(none, parse_config("static:4,0.5"), 1)
    assert main(["run", "--half", none.name, "--configs", "static:4,0.5"]) == 2
    monkeypatch.setenv("ALPHAD_SUITE_CACHE", str(tmp_path / "cache"))
    assert main(["run", "--half", two.name, "--configs", "static:4,0.5", "--cached-only",
                 "--out", str(tmp_path / "r.json")]) == 0
    assert spec(sc, parse_config("abm"), 1).scheme == "abm"
    for bad in ("auto@fast", "static:1", "static:4,op", "auto[hold=x]@1s", "Auto@1s", "auto[hold =1]@1s",
                "auto[hold= 1]@1s", "auto[=1]@1s"):
        with pytest.raises(ValueError, match="config"):
            parse_config(bad)
    assert main(["run", "--configs", "auto@soon"]) == 2


def _m(q: float, short: float, rto: int = 0, tput: float = 1.0, to: float = 0.1) -> dict:  # type: ignore[type-arg]
    return {"qct_ms_p99": q, "query_timeouts": to, "short_slowdown_p99": short,
            "short_rto_flows": rto, "long_tput_vs_dt": tput, "qct_ms_mean": q / 2}


def test_a_schemes_code_hash_covers_the_modules_its_modules_import() -> None:
    import re

    from alphad import schemes

    for name in schemes.known():
        files = runs._scheme_files(name)
        for f in files:  # closed under import
            for mod in re.findall(r"from alphad\.schemes\.(\w+) import", f.read_text()):
                assert f.with_name(f"{mod}.py") in files, (name, f.name, mod)
    # auto9 reaches the sliding window only through auto
    assert "_window.py" in {f.name for f in runs._scheme_files("auto9")}
    assert "_window.py" not in {f.name for f in runs._scheme_files("dt")}


def test_the_expert_keeps_short_and_long_flows() -> None:
    rows = {"dt": _m(30, 10), GRID[0]: _m(20, 30), GRID[1]: _m(25, 10.5),
            GRID[2]: _m(10, 10, tput=0.5)}
    assert best_static(rows) == GRID[1]  # GRID[0] hurts short flows, GRID[2] long flows
    assert best_static({"dt": _m(30, 10), GRID[0]: _m(40, 10)}) == "dt"


def test_verdicts_use_the_seed_spread() -> None:
    res = {"rows": {}, "scenarios": {}}
    for seed, (d, c) in enumerate([(10.0, 9.0), (12.0, 9.5)], start=1):
        res["rows"][row_key("s00", seed, "dt")] = {"1s": _m(d, 5)}
        res["rows"][row_key("s00", seed, "auto@100ms")] = {"1s": _m(c, 5.2, tput=0.9)}
    pairs = {p.metric: p for p in report.compare(res, "auto@100ms", ["s00"], [1, 2])}
    assert pairs["qct_ms_p99"].verdict == "win"  # 9.25 vs 11, spread 1
    assert pairs["short_slowdown_p99"].verdict == "loss"  # 5.2 vs 5, no spread
    assert pairs["long_tput_vs_dt"].verdict == "loss"
    assert math.isclose(pairs["long_tput_vs_dt"].change, 0.1)
    assert pairs["query_timeouts"].verdict == "tie"


def test_metrics_with_too_few_samples_are_not_judged() -> None:
    res = {"rows": {}, "scenarios": {}}
    for seed in (1, 2):
        counts = {"queries": 500, "short_n": 50, "long_n": 4 if seed == 2 else 40}
        res["rows"][row_key("s00", seed, "dt")] = {"1s": {**_m(10, 5), **counts}}
        res["rows"][row_key("s00", seed, "auto@100ms")] = {
            "1s": {**_m(12, 9, rto=3, tput=0.5), **counts}}
    judged = {p.metric for p in report.compare(res, "auto@100ms", ["s00"])}
    # a p99 over 50 short flows, and long flows with 4 on one seed: not judged
    assert judged == {"qct_ms_p99", "qct_ms_mean", "query_timeouts", "short_rto_flows"}


def test_scenarios_with_fewer_seeds_stay_in_the_verdicts() -> None:
    """A second seed on some scenarios: each scenario is compared on the seeds it ran."""
    res = {"rows": {}, "scenarios": {"s00": {"half": "eval"}, "s01": {"half": "eval"}}}
    for sc, seeds in (("s00", (1, 2)), ("s01", (1,))):
        for seed in seeds:
            res["rows"][row_key(sc, seed, "dt")] = {"1s": _m(10, 5)}
            res["rows"][row_key(sc, seed, "auto@100ms")] = {"1s": _m(8 + seed, 5)}
    res["rows"][row_key("s01", 2, "dt")] = {"1s": _m(10, 5)}  # DT alone on seed 2
    pairs = report.compare(res, "auto@100ms", ["s00", "s01"])
    assert {p.scenario for p in pairs} == {"s00", "s01"}
    q = {p.scenario: p for p in pairs if p.metric == "qct_ms_p99"}
    assert q["s00"].cand == 9.5 and q["s01"].cand == 9.0
    _, verdicts = report._summary(res, "eval", ["auto@100ms"])
    assert verdicts["auto@100ms"]["scenarios"] == 2
    assert verdicts["auto@100ms"]["seeds"] == "1,2 (1)"


def test_the_experts_picks_are_one_row_against_dt() -> None:
    res = {"rows": {}, "scenarios": {"s00": {"half": "eval"}, "s01": {"half": "eval"}},
           "static_best": {"s00": "static:16,1", "s01": "dt"}}
    for sc in ("s00", "s01"):
        res["rows"][row_key(sc, 1, "dt")] = {"1s": _m(10, 5)}
    res["rows"][row_key("s00", 1, "static:16,1")] = {"1s": _m(5, 5)}
    _, verdicts = report._summary(res, "eval", [])
    row = verdicts[report.STATIC_LABEL]
    assert row["scenarios"] == 2 and row["pairs"] == 12
    assert row["not_worse_share"] == 1.0  # DT's own pick ties; s00's pick halves query p99


def test_the_gain_is_read_against_the_reference_at_the_same_interval() -> None:
    res: dict = {"rows": {}, "scenarios": {n: {"half": "eval", "burst_classes": [0]}  # type: ignore[type-arg]
                                           for n in ("s00", "s01")}}
    timed_out = {  # queries timed out per scenario: DT 0.4 in both
        "dt": (0.4, 0.4), "auto-reference@100ms": (0.2, 0.3), "auto-reference@1s": (0.32, 0.32),
        "auto@100ms": (0.2, 0.2), "auto@1s": (0.36, 0.36), "auto4@100ms": (None, 0.3)}
    for cfg, tos in timed_out.items():
        for sc, to in zip(("s00", "s01"), tos, strict=True):
            if to is not None:
                res["rows"][row_key(sc, 1, cfg)] = {w: _m(10, 5, to=to) for w in ("1s", "2s")}
    assert report._gain_verdict(res, "eval", "auto@100ms") == "yes"  # 0.5 >= 0.9 x 0.375
    assert report._gain_verdict(res, "eval", "auto@1s") == "**no**"  # 0.1 < 0.9 x 0.2
    # where both ran: 0.25 against its 0.25 in s01, not its 0.375 over both scenarios
    assert report._gain_verdict(res, "eval", "auto4@100ms") == "yes"
    assert report._gain(res, "eval", "auto-reference@100ms") == pytest.approx(0.375)
    assert report._gain_verdict(res, "eval", "abm") == "-"
    assert report._gain_verdict(res, "eval", "auto-reference@1s") == "-"


def test_ablations_are_compared_with_their_defaults() -> None:
    res = {"rows": {}, "scenarios": {"s00": {"half": "dev"}}}
    res["rows"][row_key("s00", 1, "dt")] = {"1s": _m(10, 5)}
    res["rows"][row_key("s00", 1, "auto@100ms")] = {"1s": _m(8, 5, to=0.1)}
    res["rows"][row_key("s00", 1, "auto[hold=0.5]@100ms")] = {"1s": _m(8, 5, to=0.2)}
    assert report._configs(res) == ["auto@100ms"]  # ablations stay out of the verdicts
    assert report.base_config("auto[hold=0.5,safety=4]@1s") == "auto@1s"
    table = "\n".join(ablations.section(res))
    # against auto@100ms, not DT: queries timed out doubled (one seed: a loss), nothing else
    # changed; the mean over the six metrics is 2^(1/6) - 1
    assert ("| `auto[hold=0.5]@100ms` | `auto@100ms` | 1 (1) | - | 0 / 1 | 0 / 1 | +12% | - | +100% |"
            in table)  # one scenario: no standard error
    # a variant without one rule is an ablation of the scheme it comes from
    res["rows"][row_key("s00", 1, "auto3-no-reset@100ms")] = {"1s": _m(8, 5, to=0.1)}
    assert report.base_config("auto3-no-reset@100ms") == "auto3@100ms"
    assert report._configs(res) == ["auto@100ms"]
    # a config run on the evaluation half is a candidate there, and still an ablation
    res["scenarios"]["s01"] = {"half": "eval"}
    res["rows"][row_key("s01", 1, "auto[hold=0.5]@100ms")] = {"1s": _m(8, 5, to=0.2)}
    assert report._configs(res) == ["auto@100ms", "auto[hold=0.5]@100ms"]
    assert "auto[hold=0.5]@100ms" in report._configs(res, ablations=True)


def test_ablations_count_the_runs_that_write_otherwise_and_sit_beside_the_placebo(
        tmp_path: Path) -> None:
    runs = {}
    for name, text in (("a", "t_s,switch,port,queue,alpha\n0.2,0,1,3,2\n"),
                       ("b", "t_s,switch,port,queue,alpha\n0.2,0,1,3,4\n"), ("dt", None)):
        (tmp_path / name).mkdir()
        if text is not None:
            (tmp_path / name / "alphas.csv").write_text(text)
        runs[name] = writes_digest(tmp_path / name)
    assert runs["a"] != runs["b"] and runs["dt"] == writes_digest(tmp_path / "dt")
    res = {"rows": {}, "scenarios": {"s00": {"half": "dev"}, "s01": {"half": "dev"}}}
    for sc in ("s00", "s01"):
        for seed in (1, 2):
            res["rows"][row_key(sc, seed, "dt")] = {"1s": _m(10, 5)}
            res["rows"][row_key(sc, seed, "placebo")] = {"1s": _m(10 + seed, 5)}
            res["rows"][row_key(sc, seed, "auto@100ms")] = {"1s": _m(8, 5),
                                                            "writes_sha": runs["a"]}
            other = runs["b"] if (sc, seed) == ("s01", 2) else runs["a"]
            res["rows"][row_key(sc, seed, "auto[margin=1]@100ms")] = {"1s": _m(8, 5),
                                                                      "writes_sha": other}
    assert ablations.other_writes(res, "auto[margin=1]@100ms", "auto@100ms",
                                  ["s00", "s01"]) == (1, 4)
    table = "\n".join(ablations.section(res))
    assert ("| `auto[margin=1]@100ms` | `auto@100ms` | 2 (2) | 1 of 4 | 0 / 0 | 0 / 0 | +0% |"
            in table)
    # the placebo's p99 and mean at 11.5 against 10 on seeds 1-2: +15% on two metrics of six
    assert "| `placebo` (seeds 1,2) | `dt` | 2 (2) | - | 0 / 4 | 0 / 4 | +5% |" in table
    # judged on the development half only: an evaluation row changes nothing
    res["scenarios"]["s02"] = {"half": "eval"}
    res["rows"][row_key("s02", 1, "auto@100ms")] = {"1s": _m(8, 5), "writes_sha": runs["a"]}
    res["rows"][row_key("s02", 1, "auto[margin=1]@100ms")] = {"1s": _m(80, 5),
                                                              "writes_sha": runs["b"]}
    assert "\n".join(ablations.section(res)) == table
    # a third seed on one development scenario: the table says the seeds per scenario vary
    for cfg in ("dt", "auto@100ms", "auto[margin=1]@100ms"):
        res["rows"][row_key("s00", 3, cfg)] = {"1s": _m(8, 5), "writes_sha": runs["a"]}
    assert "| `auto[margin=1]@100ms` | `auto@100ms` | 2 (2-3) | 1 of 5 |" in "\n".join(
        ablations.section(res))


def test_a_pairs_ratio_is_clipped_and_reads_higher_is_better_metrics_the_right_way(
        ) -> None:
    p = report.Pair("s00", "long_tput_vs_dt", "loss", 0.5, 0.5, 1.0)
    assert ablations.log_ratio(p) == pytest.approx(math.log(2))  # half DT's throughput: worse
    p = report.Pair("s00", "short_rto_flows", "loss", math.inf, 3.0, 0.0)
    assert ablations.log_ratio(p) == pytest.approx(math.log(ablations.CLIP))
    assert ablations.mean_change([p, report.Pair("s00", "query_timeouts", "win", -0.75,
                                                 0.25, 1.0)]) == pytest.approx(0.0)


def test_the_mean_changes_range_is_two_standard_errors_over_scenarios() -> None:
    def two(ratio: float, sc: str) -> list[report.Pair]:  # the scenario's p99 at ratio x DT
        return [report.Pair(sc, "qct_ms_p99", "tie", ratio - 1, ratio, 1.0)]
    same = two(2.0, "s00") + two(2.0, "s01")
    lo, hi = ablations.change_interval(same)
    assert lo == pytest.approx(1.0) and hi == pytest.approx(1.0)  # no spread: resolved
    mixed = two(2.0, "s00") + two(0.5, "s01")  # log ratios +ln 2, -ln 2: mean 0, SE ln 2
    lo, hi = ablations.change_interval(mixed)
    assert ablations.mean_change(mixed) == pytest.approx(0.0)
    assert lo == pytest.approx(0.25 - 1) and hi == pytest.approx(4.0 - 1)
    assert all(math.isnan(x) for x in ablations.change_interval(two(2.0, "s00")))


def test_dt_against_itself_on_other_seeds_measures_the_rules_false_losses() -> None:
    res = {"rows": {}, "scenarios": {"s00": {"half": "dev"}, "s01": {"half": "dev"}}}
    for seed, p99 in zip((1, 2, 3, 4), (13.0, 14.0, 10.0, 11.0), strict=True):
        res["rows"][row_key("s00", seed, "dt")] = {"1s": _m(p99, 5)}
    for seed in (1, 2, 3):  # three seeds: not enough for two against two
        res["rows"][row_key("s01", seed, "dt")] = {"1s": _m(10, 5)}
    pairs = {p.metric: p for p in null.null_pairs(res, ["s00", "s01"])}
    assert {p.scenario for p in pairs.values()} == {"s00"}
    assert "long_tput_vs_dt" not in pairs  # DT's own by definition
    # seeds 1-2 (13.5) against 3-4 (10.5), spread 0.5: called worse, by chance
    assert pairs["qct_ms_p99"].verdict == pairs["qct_ms_mean"].verdict == "loss"
    assert pairs["query_timeouts"].verdict == "tie"
    assert "2 of 5 pairs (40%) are losses" in "\n".join(null.section(res))


def test_the_placebo_is_dts_policy_judged_on_the_same_seeds() -> None:
    sc = next(s for s in draw())
    pl = spec(sc, parse_config("placebo"), 1)
    assert pl.scheme == "dt" and pl.key() != spec(sc, parse_config("dt"), 1).key()
    assert all(0 < a / b - 1 < 1e-3 for a, b in zip(pl.alphas, sc.alphas, strict=True))
    res = {"rows": {}, "scenarios": {"s00": {"half": "dev"}, "s01": {"half": "dev"}}}
    for sc_name in ("s00", "s01"):
        for seed in (1, 2):
            res["rows"][row_key(sc_name, seed, "dt")] = {"1s": _m(10, 5)}
    for seed, p99 in ((1, 12.0), (2, 12.5)):  # s01: the placebo on seed 1 only
        res["rows"][row_key("s00", seed, "placebo")] = {"1s": _m(p99, 5, tput=0.95)}
    res["rows"][row_key("s01", 1, "placebo")] = {"1s": _m(10, 5)}
    pairs = {p.metric: p for p in null.placebo_pairs(res, [1, 2])}
    assert {p.scenario for p in pairs.values()} == {"s00"}
    assert null.placebo_pairs(res, [1, 2], "eval") == []  # judged per half
    assert pairs["qct_ms_p99"].verdict == "loss" and pairs["long_tput_vs_dt"].verdict == "loss"
    assert report._configs(res) == []  # not a candidate
    text = "\n".join(null.section({**res, "rows": {
        **res["rows"], **{row_key("s00", s, "dt"): {"1s": _m(10, 5)} for s in (3, 4)}}}))
    # three losses, two beyond 10% (query p99 and mean +22.5%; long flows +5%)
    assert "| development | 1,2 | 1 | 6 | 3 (50%) | 2 | 0 |" in text


def test_a_row_of_changed_code_keeps_its_earlier_figures() -> None:
    k = row_key("s00", 1, "auto@100ms")
    rows: dict = {row_key("s00", 1, "dt"): {"1s": _m(10, 5)}}  # type: ignore[type-arg]
    old: dict = {}  # type: ignore[type-arg]
    supersede(rows, old, k, {"1s": _m(20, 5), "code": "aaa"})
    supersede(rows, old, k, {"1s": _m(20, 5), "code": "aaa"})  # merged again: same figures
    assert old == {}
    nan = {"1s": {**_m(8, 5), "long_tput_vs_dt": math.nan}, "code": "bbb"}
    supersede(rows, old, k, nan)
    supersede(rows, old, k, json.loads(json.dumps(nan)))  # NaN read back equals NaN
    assert list(old) == [f"{k}|aaa"] and rows[k]["code"] == "bbb"
    table = "\n".join(report._superseded({"rows": rows, "superseded": old}))
    # the earlier code's query p99 and mean were twice DT's: 4 of 6 pairs not worse
    assert "| `auto@100ms` | `aaa` | 1 | 6 | 67% | +100% |" in table


def test_cached_only_runs_nothing(tmp_path: Path) -> None:
    if not default_program().is_file():
        pytest.fail(f"{default_program()} is missing: build it with `make ns3`")
    logged: list[str] = []
    camp = Campaign(tmp_path / "suite.json", tmp_path / "cache", log=logged.append,
                    cached_only=True)
    camp.run(suite("eval")[:1], ["auto@1s"], [1], statics=True)
    assert json.loads((tmp_path / "suite.json").read_text())["rows"] == {}
    assert any("not in the cache, left out" in line for line in logged)
    assert not (tmp_path / "cache" / f"sim-{camp.sim}").exists()  # no run started


def test_two_tiny_runs_on_a_local_dask_cluster(tmp_path: Path) -> None:
    """Through a real distributed.LocalCluster of worker processes, as ``--scheduler``: the
    suite's own pool and the harness's sweep."""
    import distributed

    if not default_program().is_file():
        pytest.fail(f"{default_program()} is missing: build it with `make ns3`")
    tiny = Scenario(leaves=2, spines=1, servers=2, queues=2, link_rate="1Gbps", load=0.3,
                    qps=200.0, request_frac=0.3, incast_classes="1", ws_classes="0",
                    gen=0.02, drain=0.02)
    specs = [RunSpec(scenario=tiny, scheme="dt"), RunSpec(scenario=tiny, scheme="abm")]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        camp = Campaign(tmp_path / "suite.json", tmp_path / "cache",
                        scheduler=cluster.scheduler_address, log=lambda _: None)
        assert camp.program.parent.parent == tmp_path / "cache" / "bin"  # the snapshot runs
        args = [(s.model_dump_json(), str(tmp_path / "runs"), str(camp.program), 600)
                for s in specs]
        res = camp._map(args)
        assert [r["key"] for r in res] == [s.key() for s in specs]
        assert all("error" not in r for r in res), res
        done = [json.loads((tmp_path / "runs" / s.key() / "done.json").read_text())
                for s in specs]
        assert [d["spec"]["scheme"] for d in done] == ["dt", "abm"]
        assert all(d["metrics"]["queries"] > 0 for d in done)
        stamps = [(tmp_path / "runs" / s.key() / "done.json").stat().st_mtime_ns for s in specs]
        again = execute(specs, tmp_path / "runs", scheduler=cluster.scheduler_address)
        assert json.dumps(again, sort_keys=True) == json.dumps(
            {s.key(): d for s, d in zip(specs, done, strict=True)}, sort_keys=True)
        # the cache answers; nothing runs twice
        assert stamps == [(tmp_path / "runs" / s.key() / "done.json").stat().st_mtime_ns
                          for s in specs]


def test_campaigns_saving_at_once_keep_each_others_rows(tmp_path: Path) -> None:
    if not default_program().is_file():
        pytest.fail(f"{default_program()} is missing: build it with `make ns3`")
    out = tmp_path / "suite.json"
    a, b = (Campaign(out, tmp_path / "cache", log=lambda _: None) for _ in range(2))
    a._put("rows", row_key("s00", 1, "dt"), {"1s": _m(10, 5)})
    b._put("rows", row_key("s01", 1, "dt"), {"1s": _m(20, 5)})
    a.save()
    b.save()  # b loaded the file before a saved: a's row stays
    a._put("rows", row_key("s02", 1, "dt"), {"1s": _m(30, 5)})
    a.save()  # and b's row stays too
    rows = json.loads(out.read_text())["rows"]
    assert sorted(rows) == [row_key(s, 1, "dt") for s in ("s00", "s01", "s02")]


def test_trace_folds_the_ports_of_a_class_into_one_timeline(tmp_path: Path) -> None:
    from bench.suite.trace import timeline

    f = tmp_path / "alphas.csv"
    f.write_text("t_s,switch,port,queue,alpha\n"
                 "0.1,leaf0,0,2,16.0\n0.1,leaf0,1,2,16.0\n"  # both ports at once: one entry
                 "0.2,leaf0,1,2,8.0\n"                        # they disagree: a range
                 "0.3,leaf0,0,2,8.0\n"                        # agree again
                 "0.3,leaf1,0,5,0.5\n0.4,leaf1,0,5,0.5\n")    # unchanged: no new entry
    tl = timeline(f)
    assert tl["leaf0"][2] == [(0.1, "16"), (0.2, "8-16"), (0.3, "8")]
    assert tl["leaf1"][5] == [(0.3, "0.5")]
    assert set(timeline(f, switch="leaf1")) == {"leaf1"}


def test_trace_reads_what_a_cosimulated_run_wrote(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A real co-simulated run of the cheapest scenario, shortened, through the suite's cache:
    ``trace`` prints the alphas its alphas.csv holds; a run that is not cached is an error."""
    from bench.suite import runs, trace

    if not default_program().is_file():
        pytest.fail(f"{default_program()} is missing: build it with `make ns3`")
    short = min(suite(), key=lambda s: s.cost)
    monkeypatch.setattr(trace, "suite", lambda: [short])
    monkeypatch.setenv("ALPHAD_SUITE_CACHE", str(tmp_path))
    assert main(["trace", short.name, "auto@100ms"]) == 2
    assert "not in the cache" in capsys.readouterr().err
    cfg = parse_config("auto@100ms")
    s = spec(short, cfg, 1)
    s = s.model_copy(update={"scenario": s.scenario.model_copy(update={"gen": 0.5})})
    monkeypatch.setattr(trace, "spec", lambda *a: s)
    cache = runs.cache_dir()
    prog, sim = runs.program_snapshot(cache)
    execute([s], runs.run_dir(cache, sim, cfg), program=str(prog))
    rows = (runs.run_dir(cache, sim, cfg) / s.key() / "alphas.csv").read_text().splitlines()
    assert main(["trace", short.name, "auto@100ms"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{short.name} auto@100ms seed 1: ")
    assert len(rows) > 1 and "no writes" not in out  # the cheapest scenario bursts early
    *timelines, counts = out.splitlines()[1:]
    for line in timelines:
        assert line.startswith(("leaf", "spine")) and "s " in line
    assert counts.startswith("raises ") and "step-downs" in counts


def test_steps_count_raises_that_follow_a_step_down() -> None:
    from bench.suite.trace import steps

    # 0.5 -> 2 (raise), 1 (down), 2 at +0.2 s (raise again within two 100 ms intervals),
    # 1 (down), 4 at +0.5 s (a raise, but not within two intervals)
    events = [(1.0, "2"), (1.1, "1"), (1.3, "2"), (1.4, "0.5-1"), (1.9, "1-4")]
    assert steps(events, 0.5, 0.1) == (3, 2, 1)
    assert steps(events, 0.5, 1.0) == (3, 2, 2)  # at 1 s both raises follow a step-down


def test_the_simulated_false_loss_rate_falls_with_more_seeds() -> None:
    two, four = null.simulated_null(2, n=20_000), null.simulated_null(4, n=20_000)
    assert 0.18 < two < 0.28  # about one pair in five: two seeds cannot show 95%
    assert four < two / 3


def test_the_gain_table_of_a_half_lists_only_the_configs_that_ran_there() -> None:
    res: dict = {"rows": {}, "scenarios": {"s00": {"half": "eval", "burst_classes": [0]},  # type: ignore[type-arg]
                                           "s01": {"half": "dev", "burst_classes": [0]}},
                 "static_best": {"s00": "dt", "s01": "dt"}}
    for sc, cfgs in (("s00", ("dt", "auto@100ms")), ("s01", ("dt", "auto@100ms", "auto2@1s"))):
        for cfg in cfgs:
            res["rows"][row_key(sc, 1, cfg)] = {w: _m(10, 5, to=0.2) for w in ("1s", "2s")}
    configs = ["auto@100ms", "auto2@1s"]
    for half, listed in (("eval", ["auto@100ms"]), ("dev", configs)):
        _, verdicts = report._summary(res, half, configs)
        text = "\n".join(report._gains(res, half, configs, verdicts))
        assert [c for c in configs if f"`{c}`" in text] == listed
    assert report._gains(res, "eval", configs, {}) == []


def test_runs_of_another_length_are_other_runs_in_their_own_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALPHAD_SUITE_CACHE", str(tmp_path / "cache"))
    if not default_program().is_file():
        pytest.fail(f"{default_program()} is missing: build it with `make ns3`")
    sc = suite("s22")[0]
    dt = parse_config("dt")
    assert spec(sc, dt, 1).scenario.gen == 4.0 and spec(sc, dt, 1, 12.0).scenario.gen == 12.0
    assert spec(sc, dt, 1).key() != spec(sc, dt, 1, 12.0).key()  # cached apart
    out = tmp_path / "suite.json"
    four = Campaign(out, tmp_path / "cache", log=lambda _: None)
    four._put("rows", row_key("s22", 1, "dt"), {"1s": _m(10, 5)})
    four.save()
    assert json.loads(out.read_text())["meta"]["gen_s"] == 4.0
    with pytest.raises(ValueError, match=r"--gen 12: .* holds runs of 4 s"):
        Campaign(out, tmp_path / "cache", log=lambda _: None, gen=12.0)
    assert main(["run", "--half", "s22", "--gen", "12", "--out", str(out)]) == 2
    assert "holds runs of 4 s; give another --out" in capsys.readouterr().err
    assert main(["run", "--half", "s22", "--gen", "1.5"]) == 2
    assert "--gen 1.5: flows must start for longer than the 2 s warm-up" in \
        capsys.readouterr().err
    assert main(["trace", "s22", "auto18@1s", "--seed", "9", "--gen", "12"]) == 2
    assert "--seeds 9 --configs auto18@1s --gen 12)" in capsys.readouterr().err  # its own run


def test_compare_tables_configs_against_dt_on_chosen_scenarios(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows: dict = {}  # type: ignore[type-arg]
    for n in ("s22", "s21"):
        for s, jitter in ((1, 0.0), (2, 0.2)):
            rows[row_key(n, s, "dt")] = {"1s": _m(10 + jitter, 5), "2s": _m(10 + jitter, 5)}
            worse = 1.5 if n == "s22" else 1.0  # s22's queries half as long again
            rows[row_key(n, s, "auto18@1s")] = {"2s": _m((10 + jitter) * worse, 5)}
    res = {"scenarios": {n: {"half": "dev", "burst_classes": [1]} for n in ("s22", "s21")},
           "rows": rows}
    f = tmp_path / "r.json"
    f.write_text(json.dumps(res))
    assert main(["compare", "--results", str(f), "--half", "s22,s21",
                 "--configs", "auto18@1s,auto18@100ms"]) == 0
    table = capsys.readouterr().out
    # s22's query p99 and mean are lost beyond the spread, 2 of 12 pairs
    assert "| `auto18@1s` | 2 (2) | 83% of 12 | 0 / 2 |" in table
    assert "| s22 qct_ms_p99 +50%; s22 qct_ms_mean +50% |" in table
    assert "| `auto18@100ms` | 0 |" in table  # no rows: said, not left out
    assert main(["compare", "--results", str(tmp_path / "none.json"), "--configs", "dt"]) == 2
    assert "--results:" in capsys.readouterr().err
    assert main(["compare", "--results", str(f), "--configs", "auto@soon"]) == 2
    assert main(["compare", "--results", str(f), "--configs", "dt", "--seeds", "1.5"]) == 2
    assert "--seeds: '1.5' is not whole numbers" in capsys.readouterr().err


def test_compare_steady_judges_the_late_window_and_skips_rows_without_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows: dict = {}  # type: ignore[type-arg]
    for s, jitter in ((1, 0.0), (2, 0.2)):
        rows[row_key("p00", s, "dt")] = {"2s": _m(10 + jitter, 5),
                                         STEADY: _m(10 + jitter, 5)}
        # worse after the warm-up (the start-up transient), DT's own in the late window
        rows[row_key("p00", s, "auto28@1s")] = {"2s": _m(20 + jitter, 5),
                                                STEADY: _m(10 + jitter, 5)}
        rows[row_key("p00", s, "auto18@1s")] = {"2s": _m(20 + jitter, 5)}  # no late window
    # a third seed whose candidate row has no late window: left out there, the others judged
    rows[row_key("p00", 3, "dt")] = {"2s": _m(10, 5), STEADY: _m(10, 5)}
    rows[row_key("p00", 3, "auto28@1s")] = {"2s": _m(20, 5)}
    res = {"scenarios": {"p00": {"half": "dev", "burst_classes": [1]}}, "rows": rows}
    f = tmp_path / "r.json"
    f.write_text(json.dumps(res))
    assert main(["compare", "--results", str(f), "--half", "p00",
                 "--configs", "auto28@1s"]) == 0
    out = capsys.readouterr().out
    assert "| `auto28@1s` | 1 (3) |" in out and "p00 qct_ms_p99 +99%" in out
    assert main(["compare", "--results", str(f), "--half", "p00", "--seeds", "1,2",
                 "--configs", "auto28@1s", "--per-seed"]) == 0
    out = capsys.readouterr().out
    assert "| `auto28@1s` | 1 (2) |" in out  # the seeds given
    # seed by seed against DT on the same arrivals: worse on both
    assert "| p00 | `auto28@1s` | qct_ms_p99 | 1,2 | 10, 10.2 | 20, 20.2 | 2 of 2 |" in out
    assert main(["compare", "--results", str(f), "--half", "p00", "--steady",
                 "--configs", "auto28@1s,auto18@1s"]) == 0
    table = capsys.readouterr().out
    assert "| `auto28@1s` | 1 (2) | 100% of 6 | 0 / 0 |" in table and "| none |" in table
    assert "| `auto18@1s` | 0 |" in table  # recorded before the window was: not judged


def test_the_report_has_a_section_per_file_of_longer_runs(tmp_path: Path) -> None:
    rows: dict = {}  # type: ignore[type-arg]
    for s, jitter in ((1, 0.0), (2, 0.2)):
        rows[row_key("s21", s, "dt")] = {"1s": _m(10 + jitter, 5), "2s": _m(10 + jitter, 5),
                                         STEADY: _m(10 + jitter, 5)}
        rows[row_key("s21", s, "auto18@1s")] = {"2s": _m((10 + jitter) * 1.5, 5),
                                                STEADY: _m(10 + jitter, 5)}
        rows[row_key("s21", s, "placebo")] = {"1s": _m(10 + jitter, 5)}  # no late window
    scen = {"s21": {"half": "dev", "burst_classes": [1], "describe": "x"}}
    (tmp_path / "suite-gen12s.json").write_text(json.dumps(
        {"meta": {"gen_s": 12.0}, "scenarios": scen, "rows": rows}))
    (tmp_path / "suite-gen30s.json").write_text(json.dumps(
        {"meta": {"gen_s": 30.0}, "scenarios": scen, "rows": {}}))  # nothing run: no section
    (tmp_path / "suite-gen12s-p00.json").write_text(json.dumps(  # a campaign's own file
        {"meta": {"gen_s": 12.0}, "scenarios": scen,
         "rows": {k: v for k, v in rows.items() if "placebo" not in k}}))
    (tmp_path / "suite.json").write_text(json.dumps({"scenarios": scen, "rows": {}}))
    out = tmp_path / "evaluation.md"
    report.write_report(tmp_path / "suite.json", out)
    text = out.read_text()
    assert "## Runs of 12 s" in text and "## Runs of 30 s" not in text
    part = text.split("## Runs of 12 s")[1].split("\n## ")[0]
    assert "### Development half" in part and "### Evaluation half" not in part
    head, steady = part.split("#### Development half, steady state")
    assert "| `auto18@1s` | 1 (2) | 67% of 6 |" in head  # query p99 and mean lost by 50%
    assert "s21 qct_ms_p99 +50%" in head and "| `placebo` | 1 (2) | 100% of 6 |" in head
    assert "| `auto18@1s` | 1 (2) | 100% of 6 |" in steady  # the transient left out
    assert "`placebo`" not in steady  # its rows do not record the window
    own = text.split("## Runs of 12 s in `suite-gen12s-p00.json`")[1].split("\n## ")[0]
    assert "| `auto18@1s` | 1 (2) | 67% of 6 |" in own and "`placebo`" not in own
    assert text.index("## Runs of 12 s\n") < text.index("## Runs of 12 s in")


def test_a_narrow_grid_is_picked_on_the_tuning_seed_and_judged_against_the_full_pick() -> None:
    res: dict = {"rows": {}, "scenarios": {"s00": {"half": "dev"}},  # type: ignore[type-arg]
                 "static_best": {"s00": "static:16,1"}}
    rows = res["rows"]
    for seed in (TUNE_SEED, 1, 2):
        rows[row_key("s00", seed, "dt")] = {"1s": _m(10, 5, to=0.4)}
        rows[row_key("s00", seed, "static:16,1")] = {"1s": _m(5, 5, to=0.2)}
        rows[row_key("s00", seed, "static:4,dt")] = {"1s": _m(9, 5, to=0.35)}
    grid = ["static:4,dt", "static:16,dt"]
    assert picks.narrow_pick(res, "s00", grid) is None  # the expert needs the whole grid
    for seed, q in ((TUNE_SEED, 6.0), (1, 5.4), (2, 5.6)):  # near the pick: within 10%
        rows[row_key("s00", seed, "static:16,dt")] = {"1s": _m(q, 5, to=0.21)}
    assert picks.narrow_pick(res, "s00", grid) == "static:16,dt"
    out = picks.table(res, ["s00"], grid, [])
    line = next(r for r in out if "`static:16,dt`" in r)
    assert "the narrow pick" in line and line.endswith("| yes |")
    assert next(r for r in out if "`static:4,dt`" in r).endswith("| no |")
    assert out[-1].startswith("The narrow grid's pick is near the full grid's in 1 of 1")
    rows[row_key("s00", 2, "static:16,dt")] = {"1s": _m(5.6, 9, to=0.21)}  # short flows worse
    assert picks.table(res, ["s00"], grid, [])[-1].startswith(
        "The narrow grid's pick is near the full grid's in 0 of 1")
    assert main(["picks", "--half", "s00", "--grid", "auto18@1s"]) == 2  # not a static setting
    assert main(["picks", "--half", "s00", "--grid", "static:16,op"]) == 2


def test_static_settings_are_references_not_candidates() -> None:
    res = {"rows": {}, "scenarios": {"s00": {"half": "eval"}}}
    for cfg in ("dt", "static:16,dt", "static:4,0.25", "auto18@1s", "auto18[hold=1]@1s"):
        res["rows"][row_key("s00", 1, cfg)] = {"1s": _m(10, 5)}
    assert report._configs(res) == ["auto18@1s", "auto18[hold=1]@1s"]  # run on eval: both
    assert report._configs(res, ablations=True) == ["auto18[hold=1]@1s"]


def test_a_probe_is_told_the_scenarios_burst_classes() -> None:
    two = next(s for s in draw() if len(s.burst_classes) == 2)
    told = spec(two, parse_config("oracle18@100ms"), 1).alphad["scheme_params"]["classes"]
    assert told == sum(2 ** c for c in two.burst_classes)
    assert spec(two, parse_config("oracle18[classes=1]@100ms"), 1).alphad[
        "scheme_params"] == {"classes": 1}  # a config that sets it keeps it
    assert "scheme_params" not in spec(two, parse_config("auto18@100ms"), 1).alphad
    none = next(s for s in draw() if not s.burst_classes)
    with pytest.raises(ValueError, match="no burst class"):
        spec(none, parse_config("oracle18@100ms"), 1)
    assert main(["run", "--half", none.name, "--configs", "oracle18@100ms"]) == 2
