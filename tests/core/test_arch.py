"""Arch files: the shipped ones load, inheritance and overrides work, and every kind of bad file is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from simgpu.arch import available_archs, load_arch, parse_override
from simgpu.errors import ArchError

SHIPPED = ("a100", "b200", "h100", "h200")


def test_the_four_chips_ship_and_load() -> None:
    assert set(SHIPPED) <= set(available_archs())
    for name in SHIPPED:
        assert load_arch(name).sms > 0


def test_every_number_in_a_shipped_file_carries_a_source_comment() -> None:
    for name in SHIPPED:
        path = Path(__file__).resolve().parents[2] / "archs" / f"{name}.yaml"
        for number, line in enumerate(path.read_text().splitlines(), 1):
            body = line.split("#")[0]
            value = body.split(":", 1)[1].strip() if ":" in body else ""
            try:
                float(value)
            except ValueError:
                continue
            assert "#" in line, f"{path.name}:{number}: number without a source: {line.strip()}"


def test_h200_inherits_h100_and_overrides_memory() -> None:
    h100, h200 = load_arch("h100"), load_arch("h200")
    assert h200.tensor_core == h100.tensor_core
    assert h200.l2.capacity_bytes == 62914560
    assert h200.hbm.bandwidth_bytes_per_s == 4.8e12
    assert h200.power is not None and h100.power is None


def test_override_is_a_new_validated_arch() -> None:
    base = load_arch("b200")
    what_if = load_arch("b200", {"mufu.ex2_per_cycle": 32})
    assert what_if.mufu.ex2_per_cycle == 32.0 and base.mufu.ex2_per_cycle == 16.0


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"mufu.ex2_per_cycle": 0}, r"mufu.ex2_per_cycle: Input should be greater than 0"),
        ({"mufu.ex2_per_cycle": float("nan")}, r"mufu.ex2_per_cycle: .*finite"),
        ({"sms": "132"}, r"sms: Input should be a valid integer"),
        ({"sms": 1.5}, r"sms: Input should be a valid integer"),
        ({"hbm.typo": 1}, r"hbm.typo: no such key"),
        ({"smem.per_cta_bytes": 10**9}, r"per_cta_bytes .* exceeds smem.capacity_bytes"),
        ({"features.tmem": True}, r"features.tmem must be true exactly when a tmem section is given"),
        ({"tmem.lanes": 128}, r"section tmem is absent on this arch"),
    ],
)
def test_bad_overrides_name_the_key_and_reason(override: dict[str, object], message: str) -> None:
    with pytest.raises(ArchError, match=message):
        load_arch("h100", override)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_user_file_inherits_by_name_and_unknown_key_is_named(tmp_path: Path) -> None:
    good = write(tmp_path, "mine.yaml", "inherit: h100\nname: mine\nmufu:\n  ex2_per_cycle: 32\n")
    assert load_arch(good).mufu.ex2_per_cycle == 32
    bad = write(tmp_path, "bad.yaml", "inherit: h100\nmufu:\n  ex2_rate: 32\n")
    with pytest.raises(ArchError, match=r"bad.yaml: mufu.ex2_rate: unknown key"):
        load_arch(bad)


def test_missing_key_is_named(tmp_path: Path) -> None:
    text = (Path(__file__).resolve().parents[2] / "archs" / "a100.yaml").read_text()
    kept = [line for line in text.splitlines() if not line.startswith("sms:")]
    path = write(tmp_path, "nosms.yaml", "\n".join(kept))
    with pytest.raises(ArchError, match=r"nosms.yaml: sms: missing key"):
        load_arch(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name: [unclosed\n", r"YAML syntax error"),
        ("- just\n- a list\n", r"must be a YAML mapping"),
        ("inherit: nowhere\n", r"inherit: unknown arch 'nowhere'"),
        ("inherit: 3\n", r"inherit: expected an arch name or path"),
    ],
)
def test_broken_files_are_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ArchError, match=message):
        load_arch(write(tmp_path, "x.yaml", text))


def test_inherit_cycle_is_detected(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", "inherit: b.yaml\n")
    write(tmp_path, "b.yaml", "inherit: a.yaml\n")
    with pytest.raises(ArchError, match="inherit cycle"):
        load_arch(tmp_path / "a.yaml")


def test_unknown_arch_lists_the_known_ones() -> None:
    with pytest.raises(ArchError, match=r"unknown arch 'h9' \(known: a100, b200, h100, h200"):
        load_arch("h9")


def test_parse_override_types_values() -> None:
    assert parse_override("mufu.ex2_per_cycle=32") == ("mufu.ex2_per_cycle", 32)
    assert parse_override("clock_hz=1.8e9") == ("clock_hz", 1.8e9)
    assert parse_override("power=null") == ("power", None)
    assert parse_override("features.tma=false") == ("features.tma", False)
    with pytest.raises(ArchError, match=r"expected KEY\.PATH=VALUE"):
        parse_override("novalue")
