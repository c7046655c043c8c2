"""Reading a domain API's OpenAPI document as typed records (standard library only).

The defect layer and the reference client both need to know, for any JSON answer of an
operation, which object is which record type (a schema name such as `Reservation`) and
which of its fields are money, dates, booleans or enumerations. `SchemaIndex` walks a
response alongside the document's schemas (`$ref`, `anyOf` with null, arrays, maps) and
yields every record object with its type. It imports nothing outside the standard library
so that the reference client that uses it can be shipped beside the kit's SDK.
"""
from __future__ import annotations

from typing import Any, Iterator, Optional

REF = "#/components/schemas/"


def _alternatives(schema: dict) -> list[dict]:
    """The non-null alternatives of a property schema."""
    if "anyOf" in schema or "oneOf" in schema:
        out = []
        for s in schema.get("anyOf", []) + schema.get("oneOf", []):
            out += _alternatives(s)
        return out
    if schema.get("type") == "null":
        return []
    return [schema]


class SchemaIndex:
    def __init__(self, openapi: dict):
        self.doc = openapi
        self.schemas: dict[str, dict] = openapi.get("components", {}).get("schemas", {})
        self.ops: dict[str, dict] = {}
        for path, methods in openapi.get("paths", {}).items():
            for method, op in methods.items():
                if isinstance(op, dict) and "operationId" in op:
                    self.ops[op["operationId"]] = {"method": method.upper(), "path": path, "op": op}

    # ---- operations -------------------------------------------------------------------
    def result_schema(self, operation: str) -> Optional[str]:
        o = self.ops.get(_name(operation))
        if o is None:
            return None
        ref = o["op"].get("responses", {}).get("200", {}).get("content", {}).get("application/json", {}) \
            .get("schema", {}).get("$ref", "")
        return ref[len(REF):] if ref.startswith(REF) else None

    def collection(self, operation: str) -> Optional[str]:
        o = self.ops.get(_name(operation))
        return o["op"].get("x-factforge-collection") if o else None

    def kind(self, operation: str) -> Optional[str]:
        o = self.ops.get(_name(operation))
        return o["op"].get("x-factforge-kind") if o else None

    # ---- records and fields -----------------------------------------------------------
    def properties(self, record: str) -> dict[str, dict]:
        return self.schemas.get(record, {}).get("properties", {})

    def _reachable(self, record: str, seen: set[str]) -> None:
        if record in seen or record not in self.schemas:
            return
        seen.add(record)
        for prop in self.properties(record).values():
            for name in self._refs(prop):
                self._reachable(name, seen)

    def _refs(self, schema: dict) -> list[str]:
        out = []
        for alt in _alternatives(schema):
            ref = alt.get("$ref", "")
            if ref.startswith(REF):
                out.append(ref[len(REF):])
            if alt.get("type") == "array" and isinstance(alt.get("items"), dict):
                out += self._refs(alt["items"])
            if isinstance(alt.get("additionalProperties"), dict):
                out += self._refs(alt["additionalProperties"])
        return out

    def records_of(self, operations: list[Any]) -> set[str]:
        """Every record type reachable from the results of `operations` (names or objects
        with `.name`)."""
        seen: set[str] = set()
        for op in operations:
            root = self.result_schema(op)
            if root:
                self._reachable(root, seen)
        return seen

    def fields_of(self, records: set[str], record: Optional[str] = None) -> set[str]:
        names = [record] if record else sorted(records)
        return {f for r in names for f in self.properties(r)}

    def field_is(self, record: str, field: str, what: str) -> bool:
        prop = self.properties(record).get(field)
        if prop is None:
            return False
        for alt in _alternatives(prop):
            if what == "money" and alt.get("format") == "money":
                return True
            if what == "date" and alt.get("type") == "string" and alt.get("format") == "date":
                return True
            if what == "boolean" and alt.get("type") == "boolean":
                return True
            if what == "number" and alt.get("type") in ("number", "integer"):
                return True
        return False

    def numeric_fields(self, record: str) -> list[str]:
        return [f for f in self.properties(record) if self.field_is(record, f, "number")]

    def money_fields(self, record: str) -> list[str]:
        return [f for f in self.properties(record) if self.field_is(record, f, "money")]

    def date_fields(self, records: set[str], record: Optional[str] = None) -> set[str]:
        names = [record] if record else sorted(records)
        return {f for r in names for f in self.properties(r) if self.field_is(r, f, "date")}

    def non_negative(self, record: str, field: str) -> bool:
        prop = self.properties(record).get(field, {})
        return any(alt.get("minimum") == 0 or alt.get("exclusiveMinimum") == 0 for alt in _alternatives(prop))

    def enum(self, record: str, field: str) -> Optional[list]:
        for alt in _alternatives(self.properties(record).get(field, {})):
            if "enum" in alt:
                return list(alt["enum"])
            if "const" in alt:
                return [alt["const"]]
        return None

    def item_fields(self, op: Any) -> set[str]:
        """Fields of the items of an operation's collection."""
        name = _name(op)
        root, coll = self.result_schema(name), self.collection(name)
        if not root or not coll:
            return set()
        prop = self.properties(root).get(coll, {})
        for alt in _alternatives(prop):
            if alt.get("type") == "array":
                refs = self._refs(alt.get("items", {}))
                if refs:
                    return set(self.properties(refs[0]))
        return set()

    # ---- walking data -----------------------------------------------------------------
    def walk(self, operation: str, data: Any) -> Iterator[tuple[str, dict]]:
        """(record type, object) for every record object in an operation's JSON answer."""
        root = self.result_schema(operation)
        if root and isinstance(data, dict):
            yield from self._walk({"$ref": REF + root}, data, 0)

    def _walk(self, schema: dict, data: Any, depth: int) -> Iterator[tuple[str, dict]]:
        if depth > 32:
            return
        for alt in _alternatives(schema):
            ref = alt.get("$ref", "")
            if ref.startswith(REF) and isinstance(data, dict):
                name = ref[len(REF):]
                yield name, data
                props = self.properties(name)
                for k, v in list(data.items()):
                    if k in props:
                        yield from self._walk(props[k], v, depth + 1)
                return
            if alt.get("type") == "array" and isinstance(data, list):
                for item in data:
                    yield from self._walk(alt.get("items", {}), item, depth + 1)
                return
            if isinstance(alt.get("additionalProperties"), dict) and isinstance(data, dict):
                for v in data.values():
                    yield from self._walk(alt["additionalProperties"], v, depth + 1)
                return


def _name(op: Any) -> str:
    return op if isinstance(op, str) else op.name
