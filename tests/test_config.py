"""Strict validation of the ladder config: every error names file, line, key."""

import pytest

from router import config, yamlsafe

BASE = config.PACKAGED_LADDER.read_text()


def error_for(text: str) -> config.ConfigError:
    with pytest.raises(config.ConfigError) as info:
        config.parse(text, "ladder.yaml")
    return info.value


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_packaged_config_loads_with_the_contract_intents() -> None:
    cfg = config.load()
    assert set(cfg.intents) >= {"capture-7b", "eval-7b", "lora-7b", "eval-70b"}
    assert cfg.intents["eval-70b"].min_width == 2
    assert cfg.families["h100-80gb"].provisioning == ("SPOT", "FLEX_START")
    assert cfg.families["a100-80gb"].machine_type(8) == "a2-ultragpu-8g"
    assert cfg.families["a100-80gb"].quota["FLEX_START"] == "PREEMPTIBLE_NVIDIA_A100_80GB_GPUS"
    assert cfg.short_threshold_hours == 4 and cfg.flex_start_max_run_hours == 168


@pytest.mark.parametrize(("old", "new", "needle", "message"), [
    ("    provisioning: [SPOT, FLEX_START]\n", "    provisioning: [SPOT, FLEX]\n",
     "provisioning: [SPOT, FLEX]", "unknown provisioning model 'FLEX'"),
    ("    min_width: 2\n", "    min_width: 3\n", "min_width: 3", "intents.eval-70b.min_width"),
    ("short_threshold_hours: 4", "short_threshold_hours: -4", "short_threshold_hours",
     "short_threshold_hours: expected a positive number"),
    ("  capture-7b:\n", "  capture-7b:\n    colour: blue\n", "colour: blue",
     "intents.capture-7b.colour: unknown key"),
    ("    families: [a100-80gb, h100-80gb]\n    min_width: 2",
     "    families: [a100-80gb, v100]\n    min_width: 2", "families: [a100-80gb, v100]",
     "unknown family 'v100'"),
    ('    machine_type: "a2-ultragpu-{width}g"', '    machine_type: "a2-ultragpu-8g"',
     "a2-ultragpu-8g", "must contain {width}"),
])
def test_schema_errors_carry_line_and_key(old: str, new: str, needle: str, message: str) -> None:
    assert old in BASE
    text = BASE.replace(old, new, 1)
    err = error_for(text)
    assert message in err.message
    assert err.line == line_of(text, needle)


def test_missing_required_key_points_at_parent() -> None:
    text = BASE.replace("gcp_attempt_cap_per_day: 48\n", "")
    assert "gcp_attempt_cap_per_day: required key is missing" in error_for(text).message


def test_duplicate_keys_are_errors() -> None:
    text = BASE.replace("version: 1\n", "version: 1\nversion: 1\n")
    err = error_for(text)
    assert "duplicate key 'version'" in err.message and err.line == line_of(text, "version") + 1


def test_unsafe_tags_and_syntax_errors_are_config_errors() -> None:
    assert "invalid YAML" in error_for("version: !!python/object:os.system 1\n").message
    assert error_for("intents: [unclosed\n").line is not None
    assert "expected a mapping" in error_for("- just\n- a list\n").message


def test_alias_bomb_is_rejected_quickly() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 9):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        bomb += f"{cur}: &{cur} [{', '.join('*' + prev for _ in range(10))}]\n"
    with pytest.raises(yamlsafe.YamlError, match="node budget"):
        yamlsafe.load(bomb)


def test_oversized_and_deep_documents_are_rejected() -> None:
    with pytest.raises(yamlsafe.YamlError, match="larger than"):
        yamlsafe.load("x: " + "y" * 2_000_000)
    with pytest.raises(yamlsafe.YamlError, match="deeply"):
        yamlsafe.load("[" * 5000 + "]" * 5000)


def test_located_lines_are_offset_for_embedded_blocks() -> None:
    located = yamlsafe.load("a:\n  b: 1\n", line_offset=10)
    assert located.line_of(("a", "b")) == 12
    assert located.line_of(("a", "missing")) == 11


def test_unreadable_and_non_utf8_files(tmp_path) -> None:
    with pytest.raises(config.ConfigError, match="cannot read"):
        config.load(tmp_path / "nope.yaml")
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(config.ConfigError, match="not UTF-8"):
        config.load(binary)
