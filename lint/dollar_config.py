"""dollar-cap in config files: YAML, TOML and JSON keys that set a dollar cap
to a number (`per_instance_cost_limit: 3`, `total_cost_limit = 1500.0`,
`"max_budget_usd": 25`).

A cap is a key whose name is a dollar cap (lint/money.py: money words win
over unit words) with a positive number. `null`, `0`, a negative number or
infinity means "no limit": removing a cap is not setting one. The file is
read line by line (a config file keeps one key per line far more often than
not, and the line is what a finding must point at); a key inside a comment
or a multi-line string is not a key, so those lines are skipped.

`--fix` writes `null` (YAML, JSON) or drops the line (TOML has no null)."""

from __future__ import annotations

import re

from lint.findings import Finding
from lint.money import MONEY_KEYS, is_dollar_cap_name

NAME = "dollar-cap"
_NUMBER = r"[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_YAML = re.compile(rf"^(?P<indent>\s*(?:-\s+)?)(?P<q>['\"]?)(?P<key>[A-Za-z_][\w.-]*)(?P=q)"
                   rf"\s*:\s+(?P<value>{_NUMBER}|['\"]{_NUMBER}['\"])\s*(?:#.*)?$")
_TOML = re.compile(rf"(?:^\s*|[{{,]\s*)(?P<q>['\"]?)(?P<key>[A-Za-z_][\w.-]*)(?P=q)\s*=\s*"
                   rf"(?P<value>{_NUMBER})(?=\s*(?:[,}}]|#|$))")
# A flow mapping in YAML: `limits: {max_turns: 10, max_usd: 1.25}`.
_YAML_FLOW = re.compile(rf"[{{,]\s*(?P<q>['\"]?)(?P<key>[A-Za-z_][\w.-]*)(?P=q)\s*:\s*"
                        rf"(?P<value>{_NUMBER})(?=\s*[,}}])")
_JSON = re.compile(rf"\"(?P<key>[A-Za-z_][\w.-]*)\"\s*:\s*(?P<value>{_NUMBER})(?=\s*[,}}\]]|\s*$)")
_YAML_BLOCK = re.compile(r":\s*[|>][-+0-9]*\s*(?:#.*)?$")


def kind_of(path: str) -> str | None:
    low = path.lower()
    if low.endswith((".yaml", ".yml")):
        return "yaml"
    if low.endswith(".toml"):
        return "toml"
    if low.endswith(".json"):
        return "json"
    return None


def _value(text: str) -> float | None:
    try:
        value = float(text.strip("'\"").replace("_", ""))
    except ValueError:
        return None
    return value if value == value else None  # NaN is no number


def _cap(key: str) -> bool:
    return is_dollar_cap_name(key.rsplit(".", 1)[-1])


def scan(path: str, text: str) -> list[tuple[int, int, str, str]]:
    """(line, col, key, value) for every cap key set to a positive number."""
    return [hit[:4] for hit in _scan(path, text)]


def _scan(path: str, text: str) -> list[tuple[int, int, str, str, int, int, bool]]:
    """Each hit with the value's span in its line, and whether the key opens
    the line (a whole `key = value` line)."""
    kind = kind_of(path)
    low = text.lower()
    if kind is None or not any(word in low for word in MONEY_KEYS):
        return []
    found = []
    block_indent: int | None = None
    in_toml_string = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if kind == "yaml":
            indent = len(line) - len(stripped)
            if block_indent is not None:
                if stripped and indent <= block_indent:
                    block_indent = None
                else:
                    continue  # inside a literal block: text, not keys
            if stripped.startswith("#"):
                continue
            if _YAML_BLOCK.search(line):
                block_indent = indent
                continue
            match = _YAML.match(line)
            matches = [match] if match else list(_YAML_FLOW.finditer(line))
        elif kind == "toml":
            if line.count('"""') % 2 or line.count("'''") % 2:
                in_toml_string = not in_toml_string
                continue
            if in_toml_string or stripped.startswith("#"):
                continue
            matches = list(_TOML.finditer(line))
        else:
            matches = list(_JSON.finditer(line))
        for match in matches:
            key, value = match.group("key"), match.group("value")
            amount = _value(value)
            if _cap(key) and amount is not None and 0 < amount < float("inf"):
                col = (match.start() if kind == "json" else match.start("key")) + 1
                whole = not line[:match.start("key")].strip().strip("-'\"").strip()
                found.append((number, col, key, value, match.start("value"),
                              match.end("value"), whole))
    return found


def check(path: str, text: str) -> list[Finding]:
    return [Finding(path, line, col, NAME, f"config key '{key}' sets a dollar cap ({value})")
            for line, col, key, value in scan(path, text)]


def fix(path: str, text: str) -> str:
    """The text with every cap removed: the value becomes `null` in YAML and
    JSON; in TOML (which has no null) the key goes, its whole line when it
    has one, or its `key = value` pair inside an inline table."""
    kind = kind_of(path)
    hits: dict[int, list[tuple[int, int, bool, str]]] = {}
    for line, _, key, _, start, end, whole in _scan(path, text):
        hits.setdefault(line, []).append((start, end, whole, key))
    if not hits:
        return text
    out = []
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        for start, end, whole, key in sorted(hits.get(number, []), reverse=True):
            if kind != "toml":
                line = line[:start] + "null" + line[end:]
            elif whole:
                line = ""
                break
            else:  # drop `key = value` and one comma beside it
                pair = re.compile(rf"['\"]?{re.escape(key)}['\"]?\s*=\s*$")
                head = pair.sub("", line[:start])
                tail = line[end:]
                if re.match(r"\s*,", tail):
                    tail = re.sub(r"^\s*,\s*", " ", tail, count=1)
                else:
                    head = re.sub(r",\s*$", " ", head)
                line = head + tail
        out.append(line)
    return "".join(out)
