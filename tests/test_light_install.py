"""The light install: ``pip install svoi-kozyri`` without extras is the engine,
notation, records, SVG and the pure-Python bots, with no third-party dependency.

The bare wheel is built here (pure Python, ``SVOI_KOZYRI_PURE=1``, from a copy of the
sources so the work tree gets no ``build/``), installed with ``--no-index
--no-deps`` into a fresh venv that sees no site packages, and a hand is played
there.  A second test reads every import in ``src/`` and checks that each
third-party module belongs to an extra that ``pyproject.toml`` declares.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

from svoi_kozyri.cli.extras import EXTRA_FOR_MODULE

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "svoi_kozyri"

#: What must never be imported (nor even importable) by the bare install.
HEAVY = ["numba", "numpy", "llvmlite", "fastapi", "sqlalchemy", "matplotlib", "typer", "rich"]

#: Modules imported only as a fallback for older versions of a dependency.
FALLBACK_ONLY = {"click": "typer before 0.20 was built on click; newer typer has its own copy"}

BARE_SCRIPT = r"""
import importlib.util, json, sys

import svoi_kozyri
from svoi_kozyri import Game, Rules, observe
from svoi_kozyri.bots import make_agent
from svoi_kozyri.notation import format_position, parse_position
from svoi_kozyri.records import GameRecord, parse_record, write_record
from svoi_kozyri import svg

game = Game(Rules(num_players=3))
start = game.new_hand(dealer=0, seed=7)
state = start.copy()
agents = [make_agent(name, seed=i) for i, name in enumerate(["greedy", "heuristic", "random"])]
turns = 0
while not state.is_over:
    seat = state.to_act
    state.push(agents[seat].choose(observe(state, seat)))
    turns += 1
text = write_record(GameRecord.from_state(state, start=start))
print(json.dumps({
    "turns": turns,
    "over": state.is_over,
    "svg": str(svg.position(state, 0)).startswith("<svg")
    and "<svg" in svg.position(start)._repr_svg_(),
    "position": parse_position(format_position(state)) == state,
    "record": parse_record(text).moves == GameRecord.from_state(state, start=start).moves,
    "pure": svoi_kozyri.core.game.__file__.endswith(".py"),
    "imported": sorted(m for m in HEAVY if m in sys.modules),
    "importable": sorted(m for m in HEAVY if importlib.util.find_spec(m) is not None),
}))
"""


def _copy_sources(dest: Path) -> None:
    """The files a wheel is built from, without compiled or cached files."""
    dest.mkdir(parents=True)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(
        SRC,
        dest / "src" / "svoi_kozyri",
        ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__", "*.egg-info"),
    )


@pytest.fixture(scope="module")
def bare_venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A fresh venv with the bare wheel installed and nothing else; its python."""
    work = tmp_path_factory.mktemp("light")
    _copy_sources(work / "tree")
    env = {**os.environ, "SVOI_KOZYRI_PURE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    build = ["wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(work / "dist")]
    subprocess.run(
        [sys.executable, "-m", "pip", *build, str(work / "tree")],
        check=True,
        env=env,
        timeout=300,
    )
    (wheel,) = (work / "dist").glob("svoi_kozyri-*.whl")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(work / "venv")
    python = work / "venv" / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", str(wheel)],
        check=True,
        env=env,
        timeout=300,
    )
    yield python


def _run(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the venv's python outside the checkout (so ``src/`` is not on the path)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return subprocess.run(
        [str(python), *args],
        capture_output=True,
        text=True,
        cwd=python.parent,
        env=env,
        timeout=120,
    )


def test_bare_install_plays_a_hand_without_heavy_dependencies(bare_venv: Path) -> None:
    """Engine, bots, notation, records and SVG work with only the standard library."""
    res = _run(bare_venv, "-c", f"HEAVY = {HEAVY!r}\n{BARE_SCRIPT}")
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout.splitlines()[-1])
    assert got["over"] and got["turns"] > 0
    assert got["svg"] and got["position"] and got["record"]
    assert got["pure"], "the bare wheel is pure Python"
    assert got["imported"] == []
    assert got["importable"] == [], "the fresh venv must not see the checkout's packages"


def test_bare_wheel_requires_nothing_without_an_extra(bare_venv: Path) -> None:
    """Every Requires-Dist of the installed wheel is behind an ``extra ==`` marker."""
    code = (
        "import importlib.metadata as m, json; "
        "print(json.dumps(m.distribution('svoi-kozyri').requires or []))"
    )
    res = _run(bare_venv, "-c", code)
    assert res.returncode == 0, res.stderr
    requires = json.loads(res.stdout)
    assert requires, "the extras are declared"
    assert [r for r in requires if "extra ==" not in r] == []


def test_bare_command_line_names_the_extra(bare_venv: Path) -> None:
    """The console script on a bare install: one line naming ``[cli]``, no traceback."""
    res = _run(bare_venv.parent / "svoi-kozyri", "--help")
    assert res.returncode == 1
    assert "Traceback" not in res.stderr
    assert "pip install 'svoi-kozyri[cli]'" in res.stderr
    assert res.stdout == ""


OWN = ("svoi_kozyri", "__future__")


def _third_party_imports() -> dict[str, set[str]]:
    """Top-level third-party module -> the files of ``src/`` that import it."""
    found: dict[str, set[str]] = {}
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                root = name.partition(".")[0]
                if root not in sys.stdlib_module_names and root not in (
                    "svoi_kozyri",
                    "__future__",
                ):
                    found.setdefault(root, set()).add(str(path.relative_to(SRC)))
    return found


def _requirement_name(req: str) -> str:
    """The normalised distribution name of a requirement string."""
    name = re.match(r"[A-Za-z0-9._-]+", req.strip())
    assert name is not None, req
    return re.sub(r"[-_.]+", "-", name.group(0)).lower()


def _extra_closure(extras: dict[str, list[str]], extra: str) -> set[str]:
    """Every distribution an extra brings: its own list, the extras of the project it
    names, and (from the installed metadata) what those distributions require."""
    names: set[str] = set()
    todo = list(extras[extra])
    while todo:
        req = todo.pop()
        name = _requirement_name(req)
        if name == "svoi-kozyri":
            inner = re.search(r"\[([^\]]*)\]", req)
            assert inner is not None, req
            for sub in inner.group(1).split(","):
                todo += extras[sub.strip()]
            continue
        if name in names:
            continue
        names.add(name)
        try:
            requires = importlib.metadata.distribution(name).requires or []
        except importlib.metadata.PackageNotFoundError:
            continue
        todo += [r for r in requires if "extra ==" not in r]
    return names


def test_every_third_party_import_belongs_to_a_declared_extra() -> None:
    """A new third-party import must be added to an extra and to ``EXTRA_FOR_MODULE``
    (the map the command line uses to say which extra is missing)."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    assert project["dependencies"] == [], "the bare install has no dependency"
    extras: dict[str, list[str]] = project["optional-dependencies"]
    providers = importlib.metadata.packages_distributions()
    unmapped = {m: sorted(files) for m, files in _third_party_imports().items()}
    unmapped = {m: f for m, f in unmapped.items() if m not in EXTRA_FOR_MODULE}
    assert unmapped == {}, "add these modules to cli/extras.py and an extra"
    for module, extra in EXTRA_FOR_MODULE.items():
        assert extra in extras, (module, extra)
        dists = {_requirement_name(d) for d in providers.get(module, [])}
        if not dists or module in FALLBACK_ONLY:
            continue  # not installed here (e.g. ray): the name alone is checked
        assert dists & _extra_closure(extras, extra), (module, extra, dists)
    assert set(_extra_closure(extras, "all")) >= set().union(
        *(_extra_closure(extras, e) for e in extras if e not in ("all", "dev", "train", "bench"))
    )


@pytest.mark.parametrize(
    ("blocked", "args", "extra"),
    [
        ("sqlalchemy", ["serve", "--port", "0"], "web"),
        (
            "matplotlib",
            ["arena", "--seats", "random,random", "--hands", "2", "--plot", "x"],
            "plots",
        ),
        ("openskill", ["arena", "--round-robin", "random,greedy", "--hands", "2"], "bots"),
        ("platformdirs", ["tables", "build", "--cards", "2"], "bots"),
    ],
)
def test_a_command_names_the_extra_it_misses(
    blocked: str, args: list[str], extra: str, tmp_path: Path
) -> None:
    """With a dependency of one extra absent (``None`` in ``sys.modules`` is how Python
    spells a module that cannot be imported), the command says which extra to install,
    in one line, and changes nothing."""
    code = (
        "import sys\n"
        f"sys.modules[{blocked!r}] = None\n"
        f"sys.argv = ['svoi-kozyri', *{args!r}]\n"
        "from svoi_kozyri.cli import main\n"
        "main()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "SVOI_KOZYRI_CACHE"}
    res = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert res.returncode in (1, 2), res.stderr
    assert f"pip install 'svoi-kozyri[{extra}]'" in res.stderr
    assert "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []
