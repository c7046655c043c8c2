"""Reading a pack's text files (TOML, YAML, JSON) strictly, with file:line errors.

- Text must be UTF-8 (a leading byte-order mark is dropped); an undecodable byte is reported
  with its line: `domain.toml:7: not valid UTF-8 (byte 0xe9)`.
- TOML errors carry a line number on every Python version. Python 3.11's tomllib reports
  some errors "at end of document" (an unterminated string or array, a key repeated in the
  last statement); the line is then that of the statement the error starts in: the last
  line that begins a statement and after whose predecessors the text still parses.
- Duplicate keys are errors in all three formats (TOML forbids them and tomllib says so;
  PyYAML and `json` would silently keep the last value): `v.yaml:9: duplicate key 'to'
  (first at line 7)`.
"""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any, Optional

from facts.errors import FactforgeError


def read_text(path: Path) -> str:
    """The file's text (UTF-8, BOM dropped); FactforgeError on unreadable or undecodable bytes."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise FactforgeError(f"cannot read: {e.strerror or e}", path) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise FactforgeError(f"not valid UTF-8 (byte 0x{data[e.start]:02x})", path, line) from None
    return text[1:] if text.startswith("\ufeff") else text


_AT_LINE = re.compile(r"\s*\(at line (\d+), column \d+\)\s*$")
_AT_END = re.compile(r"\s*\(at end of document\)\s*$")
_STATEMENT = re.compile(r"^\s*(\[|[A-Za-z0-9_\-\"'.]+\s*(\.|=))")


def toml_error(e: tomllib.TOMLDecodeError, text: str) -> tuple[str, Optional[int]]:
    """(message without position, line) of a tomllib error."""
    msg = str(e)
    m = _AT_LINE.search(msg)
    if m:
        return msg[:m.start()], int(m.group(1))
    m = _AT_END.search(msg)
    if not m:
        return msg, None
    msg = msg[:m.start()]
    lines = text.splitlines()
    for i in range(len(lines), 0, -1):
        if not _STATEMENT.match(lines[i - 1]):
            continue
        try:
            tomllib.loads("\n".join(lines[:i - 1]))
        except tomllib.TOMLDecodeError:
            continue
        return msg, i
    return msg, max(len(lines), 1)


def parse_toml(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg, line = toml_error(e, text)
        raise FactforgeError(f"invalid TOML: {msg}", path, line) from None


def load_toml(path: Path) -> tuple[str, dict[str, Any]]:
    text = read_text(path)
    return text, parse_toml(text, path)


def _yaml_loader():
    import yaml  # noqa: PLC0415

    class StrictLoader(yaml.SafeLoader):
        """SafeLoader that refuses a key repeated in one mapping."""

        def construct_mapping(self, node, deep=False):
            if isinstance(node, yaml.MappingNode):
                seen: dict[Any, int] = {}
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue
                    key = self.construct_object(key_node, deep=True)
                    try:
                        first = seen.get(key)
                    except TypeError:
                        continue  # an unhashable key: the constructor reports it
                    if first is not None:
                        raise FactforgeError(f"duplicate key {key!r} (first at line {first})", None,
                                             key_node.start_mark.line + 1)
                    seen[key] = key_node.start_mark.line + 1
            return super().construct_mapping(node, deep=deep)

    return StrictLoader


def parse_yaml(text: str, path: Path) -> Any:
    import yaml  # noqa: PLC0415

    try:
        return yaml.load(text, Loader=_yaml_loader())  # noqa: S506  (a SafeLoader subclass)
    except FactforgeError as e:
        raise FactforgeError(e.problem, path, e.line) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise FactforgeError(f"invalid YAML: {problem}", path, mark.line + 1 if mark is not None else None) from None
    except RecursionError:
        raise FactforgeError("invalid YAML: nested too deeply", path) from None


def load_yaml(path: Path) -> tuple[str, Any]:
    text = read_text(path)
    return text, parse_yaml(text, path)


def parse_json(text: str, path: Path) -> Any:
    """JSON with duplicate keys refused and NaN/Infinity refused."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in items:
            if k in out:
                raise ValueError(f"duplicate key {k!r}")
            out[k] = v
        return out

    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    try:
        return json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except json.JSONDecodeError as e:
        raise FactforgeError(f"invalid JSON: {e.msg}", path, e.lineno) from None
    except ValueError as e:
        raise FactforgeError(f"invalid JSON: {e}", path) from None
    except RecursionError:
        raise FactforgeError("invalid JSON: nested too deeply", path) from None


# --------------------------------------------------------------------------- locating entries

def _key_of(line: str) -> Optional[str]:
    s = line.strip()
    if "=" not in s or s.startswith("#") or s.startswith("["):
        return None
    k = s.split("=", 1)[0].strip()
    return k.strip("\"'")


def toml_entry_line(text: str, loc: tuple) -> Optional[int]:
    lines = text.splitlines()
    if not loc:
        return None
    sec = str(loc[0])
    idx = loc[1] if len(loc) > 1 and isinstance(loc[1], int) else None
    keys = [str(k) for k in loc[(2 if idx is not None else 1):] if not isinstance(k, int)]
    counts: dict[str, int] = {}
    cur, cur_idx, header_line = None, None, None
    best = None
    for i, line in enumerate(lines, 1):
        s = line.strip()
        if s.startswith("[[") and s.endswith("]]"):
            cur = s[2:-2].strip()
            cur_idx = counts.get(cur, 0)
            counts[cur] = cur_idx + 1
            if cur == sec and (idx is None or cur_idx == idx):
                header_line = i
                best = best or i
            continue
        if s.startswith("[") and s.endswith("]"):
            cur, cur_idx = s[1:-1].strip(), None
            if cur == sec and not keys:
                return i
            if keys and cur == f"{sec}.{keys[0]}":
                return i
            continue
        in_target = cur == sec and (idx is None or cur_idx == idx)
        if in_target and keys and _key_of(line) == keys[0]:
            return i
        if in_target and idx is None and not keys and best is None:
            best = i
    if header_line:
        return header_line
    if best:
        return best
    needle = keys[-1] if keys else sec
    for i, line in enumerate(lines, 1):
        if _key_of(line) == needle or line.strip() == f"[{needle}]":
            return i
    return None


def yaml_entry_line(text: str, loc: tuple) -> Optional[int]:
    lines = text.splitlines()
    if not loc:
        return None
    start = None
    for i, line in enumerate(lines):
        if re.match(rf"{re.escape(str(loc[0]))}\s*:", line):
            start = i
            break
    if start is None:
        return None
    pos, rest = start, list(loc[1:])
    while rest:
        k = rest.pop(0)
        if isinstance(k, int):
            items = [j for j in range(pos + 1, len(lines)) if re.match(r"\s*-\s", lines[j])]
            indents = [len(lines[j]) - len(lines[j].lstrip()) for j in items]
            if not items:
                break
            top = min(indents)
            items = [j for j, ind in zip(items, indents) if ind == top]
            if k >= len(items):
                break
            pos = items[k]
            m = re.match(r"\s*-\s*([\w\"']+)\s*:", lines[pos])
            if rest and m and m.group(1).strip("\"'") == str(rest[0]):
                rest.pop(0)
        else:
            for j in range(pos + 1, len(lines)):
                if re.match(rf"\s*(?:-\s*)?[\"']?{re.escape(str(k))}[\"']?\s*:", lines[j]):
                    pos = j
                    break
            else:
                break
    return pos + 1
