"""Arch files: the shipped ones load, inheritance and overrides work, and every kind of bad file is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from simgpu.arch import available_archs, load_arch, parse_override
from simgpu.errors import ArchError

SHIPPED = ("a100", "b200", "h100", "h200", "h200_sustained")


def test_the_shipped_files_load() -> None:
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


def test_h200_sustained_differs_from_h200_in_its_saturated_clock_only() -> None:
    h200, sustained = load_arch("h200"), load_arch("h200_sustained")
    assert h200.power is not None and sustained.power is not None
    assert sustained.power.tensor_saturated_clock_hz < h200.power.tensor_saturated_clock_hz
    same_power = sustained.with_overrides({"power.tensor_saturated_clock_hz": h200.power.tensor_saturated_clock_hz})
    assert same_power.model_copy(update={"name": h200.name}) == h200


def test_h200_inherits_h100_and_overrides_memory() -> None:
    h100, h200 = load_arch("h100"), load_arch("h200")
    assert h200.tensor_core == h100.tensor_core
    assert h200.l2.capacity_bytes == 62914560
    assert h200.hbm.bandwidth_bytes_per_s == 4.8e12
    # The same GH100 SM at the same 700 W cap, each chip's own power-limited clock (wgmma by the cycle counter): the
    # H200 overrides the one it inherits.
    assert h200.power is not None and h100.power is not None
    assert (h100.power.tensor_saturated_clock_hz, h200.power.tensor_saturated_clock_hz) == (1.633e9, 1.598e9)
    assert h200.clock_hz > h100.clock_hz


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


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("inherit: h100\nsms: 132\nsms: 66\n", "line 3: sms: duplicate key (first on line 2)"),
        (
            "inherit: h100\nmufu:\n  ex2_per_cycle: 16\n  ex2_per_cycle: 32\n",
            "line 4: mufu.ex2_per_cycle: duplicate key",
        ),
        (
            "inherit: h100\ntensor_core:\n  flops_per_cycle:\n    bf16: 1\n    fp16: 1\n    bf16: 2\n",
            "line 6: tensor_core.flops_per_cycle.bf16: duplicate key (first on line 4)",
        ),
        ("inherit: h100\nl2: {capacity_bytes: 1}\nl2: {hit_latency_cycles: 1}\n", "line 3: l2: duplicate key"),
        ("inherit: h100\nsms: 132\n'sms': 66\n", "line 3: sms: duplicate key (first on line 2)"),  # same key, quoted
        ("inherit: h100\nx: [{a: 1}, {b: 1, b: 2}]\n", "line 2: x[1].b: duplicate key"),
    ],
)
def test_a_key_given_twice_is_refused_at_any_depth(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, "twice.yaml", text)
    with pytest.raises(ArchError) as raised:
        load_arch(path)
    assert str(raised.value).startswith(f"{path}: {message}")
    assert "\n" not in str(raised.value)


def test_the_same_key_in_different_mappings_and_merge_overrides_still_load(tmp_path: Path) -> None:
    text = (
        "inherit: h100\n"
        "l2: {bandwidth_bytes_per_s: 1.0e+13}\n"
        "hbm: {bandwidth_bytes_per_s: 4.0e+12}\n"  # same key name, another section
        "mufu: &m {ex2_per_cycle: 8}\n"
        "mufu_again: {<<: *m, ex2_per_cycle: 32}\n"  # `<<` merges may be overridden: not a duplicate
    )
    path = write(tmp_path, "ok.yaml", text)
    with pytest.raises(ArchError, match=r"ok.yaml: mufu_again: unknown key"):  # loaded as YAML, refused by schema
        load_arch(path)
    valid = write(
        tmp_path, "valid.yaml", "inherit: h100\nl2: {bandwidth_bytes_per_s: 1.0e+13}\nhbm: {latency_cycles: 9}\n"
    )
    arch = load_arch(valid)
    assert (arch.l2.bandwidth_bytes_per_s, arch.hbm.latency_cycles) == (1.0e13, 9)


def test_yaml_is_loaded_safely(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = write(tmp_path, "evil.yaml", f"inherit: h100\nname: !!python/object/apply:os.system ['touch {marker}']\n")
    with pytest.raises(ArchError, match=r"evil.yaml: line 2: YAML syntax error: could not determine a constructor"):
        load_arch(path)
    assert not marker.exists()


def family(tmp_path: Path, parent: str, child: str = "name: child\n") -> Path:
    """A parent file and a child that inherits it by relative path; returns the child."""
    write(tmp_path, "parent.yaml", parent)
    return write(tmp_path, "child.yaml", "inherit: parent.yaml\n" + child)


@pytest.mark.parametrize(
    ("parent", "reason"),
    [
        ("inherit: h100\nmufu:\n  ex2_per_cycle: 0\n", "mufu.ex2_per_cycle: Input should be greater than 0 (got 0)"),
        ("inherit: h100\nmufu:\n  ex2_rate: 32\n", "mufu.ex2_rate: unknown key"),
        ("inherit: h100\nsms: '132'\n", "sms: Input should be a valid integer (got '132')"),
        ("inherit: h100\nsmem:\n  per_cta_bytes: 300000\n", "smem.per_cta_bytes (300000) exceeds smem.capacity_bytes"),
        ("inherit: h100\nname: [unclosed\n", "line 3: YAML syntax error: expected ',' or ']'"),
        ("inherit: h100\nsms: 1\nsms: 2\n", "line 3: sms: duplicate key (first on line 2)"),
        ("inherit: h300\n", "inherit: unknown arch 'h300'"),
        ("- a list\n", "an arch file must be a YAML mapping, got list"),
    ],
)
def test_a_bad_parent_is_blamed_not_the_child_that_inherits_it(tmp_path: Path, parent: str, reason: str) -> None:
    child = family(tmp_path, parent)
    with pytest.raises(ArchError) as raised:
        load_arch(child)
    message = str(raised.value)
    assert message.startswith(f"{tmp_path / 'parent.yaml'}: {reason}")
    assert message.endswith(f"(inherited by {child})")
    assert "\n" not in message


def test_a_chain_of_inherits_names_every_heir(tmp_path: Path) -> None:
    child = family(tmp_path, "inherit: h100\nmufu:\n  ex2_per_cycle: 0\n")
    grandchild = write(tmp_path, "grandchild.yaml", "inherit: child.yaml\n")
    with pytest.raises(ArchError) as raised:
        load_arch(grandchild)
    assert str(raised.value) == (
        f"{tmp_path / 'parent.yaml'}: mufu.ex2_per_cycle: Input should be greater than 0 (got 0) "
        f"(inherited by {child}, in turn by {grandchild})"
    )


def test_the_child_is_blamed_for_what_it_sets_and_may_fix_its_parent(tmp_path: Path) -> None:
    bad_parent = "inherit: h100\nmufu:\n  ex2_per_cycle: 0\n"
    child = family(tmp_path, bad_parent, "mufu:\n  ex2_per_cycle: -1\n")  # its own bad value replaces the parent's
    with pytest.raises(ArchError) as raised:
        load_arch(child)
    assert str(raised.value) == f"{child}: mufu.ex2_per_cycle: Input should be greater than 0 (got -1)"
    inconsistent = family(tmp_path, "inherit: h100\n", "smem:\n  per_cta_bytes: 300000\n")
    with pytest.raises(ArchError, match=rf"^{inconsistent}: smem.per_cta_bytes \(300000\) exceeds"):
        load_arch(inconsistent)
    fixed = family(tmp_path, bad_parent, "mufu:\n  ex2_per_cycle: 16\n")
    assert load_arch(fixed).mufu.ex2_per_cycle == 16
    # A partial base file (not an arch on its own) completed by its child loads; a key neither gives is the base's.
    full = (Path(__file__).resolve().parents[2] / "archs" / "a100.yaml").read_text().splitlines()
    base = "\n".join(line for line in full if not line.startswith(("sms:", "clock_hz:")))
    assert load_arch(family(tmp_path, base, "sms: 100\nclock_hz: 1.0e+9\n")).sms == 100
    with pytest.raises(ArchError) as raised:
        load_arch(family(tmp_path, base, "sms: 100\n"))
    assert str(raised.value).startswith(f"{tmp_path / 'parent.yaml'}: clock_hz: missing key")


def test_a_file_loaded_again_is_read_again(tmp_path: Path) -> None:
    # Parses are kept by the file's text (`simulate` loads its arch by name on every call): an edited file, or an
    # edited parent, gives the new values; loading one twice gives equal archs that share nothing mutable.
    write(tmp_path, "parent.yaml", "inherit: h100\nname: parent\nmufu:\n  ex2_per_cycle: 32\n")
    child = write(tmp_path, "child.yaml", "inherit: parent.yaml\nname: child\n")
    first = load_arch(child)
    assert load_arch(child) == first and first.mufu.ex2_per_cycle == 32
    write(tmp_path, "parent.yaml", "inherit: h100\nname: parent\nmufu:\n  ex2_per_cycle: 64\n")
    assert load_arch(child).mufu.ex2_per_cycle == 64
    write(tmp_path, "child.yaml", "inherit: parent.yaml\nname: child\nmufu:\n  ex2_per_cycle: 8\n")
    assert load_arch(child).mufu.ex2_per_cycle == 8
