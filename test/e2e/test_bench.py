"""`ostium bench` against a real `ostium serve`: COSBench's example
workload unchanged, a quick mode, and a comparison of two runs."""

import json
import os
import subprocess

import pytest

from helpers import REPO

EXAMPLE = os.path.join(REPO, "internal", "bench", "workload", "testdata", "hybrid-small.xml")


def bench(ostium_bin, server, *args, cwd=None):
    cmd = [ostium_bin, "bench", *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=cwd,
                       env={**os.environ, "OSTIUM_ROOT_ACCESS_KEY": server.access_key,
                            "OSTIUM_ROOT_SECRET_KEY": server.secret_key})
    assert p.returncode == 0, f"{' '.join(cmd)}:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p.stdout


def summary(path):
    with open(os.path.join(path, "summary.json")) as f:
        return {(st["name"], op["op_type"]): op for st in json.load(f)["stages"] for op in st["ops"]}


@pytest.mark.multinode  # concurrent writers and hash-checked readers on all nodes
def test_cosbench_example_workload(ostium_bin, server, tmp_path):
    out = str(tmp_path / "run")
    text = bench(ostium_bin, server, "run", "--no-ceiling", "--endpoint", server.endpoint, "--access-key", server.access_key,
                 "--secret-key", server.secret_key, "--out", out, EXAMPLE)
    for column in ("Op-Type", "Op-Count", "Byte-Count", "Avg-ResTime", "Avg-ProcTime", "Throughput", "Bandwidth", "Succ-Ratio"):
        assert column in text
    ops = summary(out)
    assert ops[("init", "init")]["op_count"] == 4
    assert ops[("prepare", "write")]["op_count"] == 800
    assert ops[("cleanup", "delete")]["op_count"] == 1600
    for (stage, op), s in ops.items():
        assert s["success_ratio"] == 1, (stage, op, s.get("last_error"))
        assert set(s["percentiles_ms"]) >= {"p50", "p99", "p99.9", "max"}
    for name in ("summary.csv", "timeseries.csv", "histogram.csv", "report.html"):
        assert os.path.getsize(os.path.join(out, name)) > 0


def test_quick_modes_and_compare(ostium_bin, server, tmp_path):
    runs = []
    for i in range(2):
        out = str(tmp_path / f"get{i}")
        bench(ostium_bin, server, "get", "--endpoint", server.endpoint, "--ops", "300", "--objects", "50",
              "--size", "1KiB-64KiB", "--verify", "--bucket-prefix", f"e2e-bench-{i}", "--out", out)
        ops = summary(out)
        assert ops[("main", "read")]["op_count"] == 300 and ops[("main", "read")]["success_ratio"] == 1
        with open(os.path.join(out, "summary.json")) as f:
            assert json.load(f)["generator_ceiling"]["throughput_ops"] > 0
        runs.append(out)
    text = bench(ostium_bin, server, "compare", "--svg", str(tmp_path / "cmp.svg"), *runs)
    assert "main" in text and "read" in text
    assert open(tmp_path / "cmp.svg").read().startswith("<svg")


def test_readme_form_and_failures(ostium_bin, server, tmp_path):
    """`bench run FILE --endpoint URL` as the README writes it: flags after
    the file, keys from the environment; compare writes beside its inputs;
    a wrong key fails the run at once, with S3's reason."""
    out = str(tmp_path / "readme")
    text = bench(ostium_bin, server, "run", EXAMPLE, "--endpoint", server.endpoint, "--no-ceiling", "--out", out)
    assert "credentials from the environment" in text
    assert summary(out)[("prepare", "write")]["op_count"] == 800
    text = bench(ostium_bin, server, "compare", out, out, cwd=str(tmp_path.parent))
    assert os.path.exists(tmp_path / "compare-readme-vs-readme.svg"), text
    p = subprocess.run([ostium_bin, "bench", "run", EXAMPLE, "--endpoint", server.endpoint, "--no-ceiling",
                        "--out", str(tmp_path / "bad")], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "OSTIUM_ROOT_ACCESS_KEY": "AKNOSUCHKEY", "OSTIUM_ROOT_SECRET_KEY": "x"})
    assert p.returncode != 0 and "403 InvalidAccessKeyId" in p.stderr, p.stderr


def test_docs_workload_examples(ostium_bin, server, tmp_path):
    """Every workload example of docs/bench.md runs as written with the
    real binary (runtimes cut to a second), and fails nothing."""
    import re
    with open(os.path.join(REPO, "docs", "bench.md")) as f:
        doc = f.read()
    examples = [body for lang, body in re.findall(r"(?ms)^```(yaml|xml)\n(.*?)^```", doc)
                if (lang == "yaml" and "stages:" in body) or (lang == "xml" and "<workload" in body)]
    assert examples, "no workload example in docs/bench.md"
    for i, body in enumerate(examples):
        path = tmp_path / f"example-{i}.{'xml' if '<workload' in body else 'yaml'}"
        path.write_text(re.sub(r'(runtime(?:: |="))\d+', r"\g<1>1", body))
        out = str(tmp_path / f"out-{i}")
        bench(ostium_bin, server, "run", str(path), "--endpoint", server.endpoint, "--no-ceiling", "--out", out)
        for (stage, op), s in summary(out).items():
            assert s["op_count"] > 0 and s["error_count"] == 0, (i, stage, op, s.get("last_error"))


def test_ceilings_compare_like_with_like(ostium_bin, server, tmp_path):
    """The hybrid workload and a PUT run, ceilings measured: each measured
    work has the ceiling of its own operations, named by it, the headroom
    is never above 1, and the report says how long the run took."""
    out = str(tmp_path / "hybrid")
    text = bench(ostium_bin, server, "run", EXAMPLE, "--endpoint", server.endpoint, "--out", out)
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    assert [c["stage"] for c in s["generator_ceilings"]] == ["main/mixed"], s["generator_ceilings"]
    assert "read 60%, list 10%, write 16% of c(64)KB, delete 14%, verifying, 16 workers" in s["generator_ceilings"][0]["what"]
    assert [b["stage"] for b in s["bounds"]] == ["main/mixed"] and 0 < s["bounds"][0]["ceiling_ratio"] <= 1, s["bounds"]
    assert "Headroom: stage main/mixed" in text and "The run took" in text
    out = str(tmp_path / "put")
    text = bench(ostium_bin, server, "put", "--endpoint", server.endpoint, "--duration", "2s", "--bucket-prefix", "e2e-put",
                 "--out", out)
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    assert "PUT of 4 KiB" in s["generator_ceiling"]["what"] and "GET" not in s["generator_ceiling"]["what"]
    assert 0 < s["bounds"][0]["ceiling_ratio"] <= 1
    assert "cleanup: deleting the" in text and "The run took" in text and ", cleanup " in text
