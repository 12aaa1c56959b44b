"""The documentation cannot drift from the code or break.

* docs/configuration.md is what ``python -m alphad.docgen`` makes of the model, and
  every key of the model has a meaning;
* every relative link in the project's Markdown reaches a file, and every ``#anchor``
  a heading (GitHub's slugs) or an explicit ``<a id>`` of the target;
* the operator's guide explains every dashboard panel and alert rule that ships;
* every ``alphad ...`` command shown in README.md and docs/operators-guide.md parses
  with the daemon's own argument parser, its subcommand's ``--help`` works, and a
  configuration file it names passes ``alphad check-config``.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import unicodedata
from pathlib import Path

import pytest
import yaml

from alphad import cli, docgen

ROOT = Path(__file__).resolve().parents[2]
SKIP_DIRS = {"build", "node_modules", "test-output", "__pycache__"}
COMMAND_DOCS = ("README.md", "docs/operators-guide.md")
# Paths of the container image that hold files of the repository.
IMAGE_PATHS = {"/etc/alphad/": "configs/sonic/"}

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
_HTML_HREF = re.compile(r"<(?:a|img)\s[^>]*(?:href|src)=\"([^\"]+)\"", re.I)
_HTML_ID = re.compile(r"<a\s[^>]*(?:id|name)=\"([^\"]+)\"", re.I)
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def markdown_files() -> list[Path]:
    out = []
    for p in sorted(ROOT.rglob("*.md")):
        rel = p.relative_to(ROOT).parts
        if any(part.startswith(".") or part in SKIP_DIRS for part in rel[:-1]):
            continue
        out.append(p)
    return out


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) outside fenced code blocks, inline code removed."""
    out, fence = [], None
    for i, line in enumerate(text.splitlines(), 1):
        m = _FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if fence is None:
            out.append((i, _INLINE_CODE.sub("", line)))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces -> '-'."""
    text = re.sub(r"<[^>]+>", "", heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text stays
    text = text.replace("`", "").lower()
    kept = [c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN"]
    return "".join(kept).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    seen: dict[str, int] = {}
    out: set[str] = set()
    for _, line in prose_lines(text.replace("`", "\x00")):  # headings keep their code
        m = _HEADING.match(line.replace("\x00", "`"))
        if m:
            s = slug(m.group(2))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f"{s}-{n}")
    out |= set(_HTML_ID.findall(text))
    return out


def links(path: Path) -> list[tuple[int, str]]:
    """(line, target) of every link and image; a link's text may span lines."""
    lines = prose_lines(path.read_text(encoding="utf-8"))
    text = "\n".join(line for _, line in lines)
    starts = [0]
    for _, line in lines:
        starts.append(starts[-1] + len(line) + 1)
    found = []  # (line, offset, target), in the order they appear
    for rx in (_LINK, _HTML_HREF):
        for m in rx.finditer(text):
            k = next(j for j in range(len(lines)) if starts[j + 1] > m.start(1))
            found.append((lines[k][0], m.start(1), m.group(1)))
    for k, (i, line) in enumerate(lines):
        m = _REF_DEF.match(line)
        if m:
            found.append((i, starts[k], m.group(1)))
    return [(i, t) for i, _, t in sorted(found)]


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    problems = []
    cache: dict[Path, set[str]] = {}
    for line, target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("//"):
            continue  # http:, https:, mailto: ... are not checked here
        where = f"{path.relative_to(root)}:{line}: {target}"
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            problems.append(f"{where}: no such file")
            continue
        if root not in dest.parents and dest != root:
            problems.append(f"{where}: outside the repository")
            continue
        if anchor and dest.suffix == ".md":
            if dest not in cache:
                cache[dest] = anchors(dest)
            if anchor not in cache[dest]:
                problems.append(f"{where}: no heading or <a id> '{anchor}' in "
                                f"{dest.relative_to(root)}")
    return problems


# -- configuration.md ---------------------------------------------------------------


def test_every_configuration_key_has_a_meaning_and_no_meaning_is_left_over() -> None:
    assert docgen.missing_meanings() == []
    assert docgen.stale_meanings() == []


def test_a_scheme_registered_outside_the_daemon_is_not_in_the_reference(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from alphad import schemes
    from alphad.schemes import _base

    # as a harness registers its own scheme (the strategies' `schedule`) in the same process
    monkeypatch.setitem(_base._REGISTRY, "harness-only", lambda ctx, params: None)
    assert "harness-only" in schemes.known()
    assert "harness-only" not in docgen._scheme_params()
    assert "dt" in docgen._scheme_params()


def test_configuration_md_is_what_the_model_generates() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = docgen.main(["--check", "-o", str(ROOT / "docs" / "configuration.md")])
    assert rc == 0, ("docs/configuration.md differs from the model; regenerate it with "
                     "`python -m alphad.docgen`:\n" + out.getvalue()[:4000])


def test_docgen_check_fails_on_a_stale_file(tmp_path: Path) -> None:
    stale = tmp_path / "configuration.md"
    stale.write_text(docgen.generate().replace("`100ms`", "`200ms`", 1))
    with contextlib.redirect_stdout(io.StringIO()):
        assert docgen.main(["--check", "-o", str(stale)]) == 1
        assert docgen.main(["-o", str(stale)]) == 0
        assert docgen.main(["--check", "-o", str(stale)]) == 0


def test_a_key_without_a_meaning_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(docgen.MEANINGS, "limits.write_budget")
    assert docgen.missing_meanings() == ["limits.write_budget"]
    with pytest.raises(ValueError, match=r"limits\.write_budget"):
        docgen.generate()


# -- links ---------------------------------------------------------------------------


def test_link_checker_finds_broken_links_and_anchors(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("# The `b` page: 2.0\n\n## Twice\n\n## Twice\n"
                                   '<a id="here"></a>\n')
    a = tmp_path / "a.md"
    a.write_text("[ok](b.md#the-b-page-20) [ok](b.md#twice-1) [ok](b.md#here) ![two\n"
                 "lines](d.png)\n"
                 "[bad](c.md) [bad](b.md#nope) [ok](#top)\n# Top\n"
                 "`[code](missing.md)`\n```\n[fenced](missing.md)\n```\n"
                 "[web](https://example.org/x.md)\n")
    problems = broken_links(a, tmp_path.resolve())
    assert [p.split(": ", 2)[1:] for p in problems] == [
        ["d.png", "no such file"], ["c.md", "no such file"],
        ["b.md#nope", "no heading or <a id> 'nope' in b.md"]]


def test_every_relative_link_and_anchor_resolves() -> None:
    files = markdown_files()
    assert ROOT / "README.md" in files and len(files) > 5
    problems = [p for f in files for p in broken_links(f)]
    assert problems == [], "\n".join(problems)


# -- dashboards and alerts in the operator's guide ---------------------------------------


def _panels(panels: list[dict]) -> list[dict]:
    out = []
    for p in panels:
        if p.get("type") != "row":
            out.append(p)
        out += _panels(p.get("panels", []))
    return out


def test_operators_guide_explains_every_dashboard_panel_and_alert() -> None:
    guide = (ROOT / "docs" / "operators-guide.md").read_text(encoding="utf-8")
    missing = []
    boards = sorted((ROOT / "dashboards" / "provisioning" / "dashboards").glob("*.json"))
    assert len(boards) >= 3
    for board in boards:
        dash = json.loads(board.read_text(encoding="utf-8"))
        if f"### {dash['title'].split(' / ')[-1]}" not in guide:
            missing.append(f"dashboard {dash['title']!r}")
        missing += [f"panel {p['title']!r} of {dash['title']!r}"
                    for p in _panels(dash["panels"]) if p["title"] not in guide]
    rules = yaml.safe_load((ROOT / "dashboards" / "alerts.yml").read_text(encoding="utf-8"))
    alerts = [r["alert"] for g in rules["groups"] for r in g["rules"] if "alert" in r]
    assert alerts
    missing += [f"alert {a!r}" for a in alerts if f"| {a} (" not in guide]
    assert missing == [], "docs/operators-guide.md does not explain: " + ", ".join(missing)


# -- commands ------------------------------------------------------------------------


def shown_commands(path: Path) -> list[tuple[int, list[str]]]:
    """``alphad ...`` commands in the code blocks and inline code of ``path``."""
    text = path.read_text(encoding="utf-8")
    found: list[tuple[int, str]] = []
    block: list[tuple[int, str]] | None = None
    indent = 0  # a fence inside a list item: its lines carry the item's indentation
    for i, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            if block is None:
                block, indent = [], len(line) - len(line.lstrip(" "))
                continue
            # a block that shows a terminal transcript: only its "$ " lines are commands
            if any(b.startswith("$ ") for _, b in block):
                block = [(j, b) for j, b in block if b.startswith("$ ")]
            found += block
            block = None
        elif block is not None:
            cut = min(indent, len(line) - len(line.lstrip(" ")))
            block.append((i, line[cut:]))
        else:  # inline: a command has arguments; `alphad restore` alone names one
            found += [(i, code) for _, code in _INLINE_CODE.findall(line)
                      if len(code.split()) > 2]
    out = []
    for i, code in found:
        code = re.sub(r"^(?:(?:\$|sudo)\s+)+", "", code.split(" # ")[0].rstrip())
        m = re.match(r"^(?:\S*/)?alphad\s+(\S.*)$", code)
        if m and "<" not in code and "[" not in code:
            out.append((i, shlex.split(m.group(1))))
    return out


def _check_config(arg: str) -> int:
    for image, repo in IMAGE_PATHS.items():
        if arg.startswith(image):
            arg = repo + arg[len(image):]
    path = ROOT / arg
    assert path.exists(), f"names a configuration that is not in the repository: {arg}"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return cli.main(["check-config", "-c", str(path)])


def _config_arg(argv: list[str]) -> str | None:
    for j, a in enumerate(argv):
        if a in ("-c", "--config") and j + 1 < len(argv):
            return argv[j + 1]
        if a.startswith("--config="):
            return a.split("=", 1)[1]
    return None


@pytest.mark.parametrize("doc", COMMAND_DOCS)
def test_every_alphad_command_shown_parses(doc: str) -> None:
    path = ROOT / doc
    commands = shown_commands(path)
    assert commands, f"{doc} shows no alphad command"
    parser = cli.build_parser()
    problems = []
    for line, argv in commands:
        where = f"{doc}:{line}: alphad {' '.join(argv)}"
        try:
            with contextlib.redirect_stderr(io.StringIO()) as err, \
                    contextlib.redirect_stdout(io.StringIO()):
                args = parser.parse_args(argv)
        except SystemExit as e:
            if e.code != 0:  # --help, --version exit 0
                problems.append(f"{where}: {err.getvalue().strip().splitlines()[-1]}")
            continue
        with pytest.raises(SystemExit) as help_exit, \
                contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args([args.command, "--help"])
        assert help_exit.value.code == 0
        conf = _config_arg(argv)
        if conf is not None and not conf.isupper():
            try:
                rc = _check_config(conf)
            except AssertionError as e:
                problems.append(f"{where}: {e}")
                continue
            if rc != 0:
                problems.append(f"{where}: alphad check-config -c {conf} fails")
    assert problems == [], "\n".join(problems)


def test_command_extraction_sees_blocks_and_inline_code(tmp_path: Path) -> None:
    md = tmp_path / "x.md"
    md.write_text("Run `alphad check-config -c configs/alphad.yaml` first, then `alphad run`.\n"
                  "\n```sh\nmake run\n.venv/bin/alphad run -c FILE --duration 10\n"
                  "alphad run -c <file>\n```\n\n```\n"
                  "$ sudo alphad restore -c /etc/alphad/alphad-sonic.yaml   # restores\n"
                  "alphad: switch restored\n  alphad    static DT\n```\n\n1. Check:\n\n"
                  "   ```sh\n   alphad check-config -c configs/alphad.yaml\n   ```\n")
    assert shown_commands(md) == [
        (1, ["check-config", "-c", "configs/alphad.yaml"]),
        (5, ["run", "-c", "FILE", "--duration", "10"]),
        (10, ["restore", "-c", "/etc/alphad/alphad-sonic.yaml"]),
        (18, ["check-config", "-c", "configs/alphad.yaml"]),
    ]
    assert _check_config("/etc/alphad/alphad-sonic.yaml") == 0
