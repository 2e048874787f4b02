"""Checks the bodies of the API's answers against the schemas of its OpenAPI document (schemas.py, copied
from the document): every field the schema lists, with its type, constant, bounds, pattern and format.
Fields the schema does not list are ignored and left out of the result, so a field the network adds later
breaks nothing. Only the JSON Schema keywords those schemas use are understood; any other is refused, so a
new keyword in the document shows up as a failing check rather than as a silently weaker one."""
import re
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import urlsplit

KNOWN_KEYWORDS = {
    "type", "required", "properties", "description", "minimum", "maximum", "minLength", "maxLength",
    "pattern", "format", "const", "anyOf",
}
JSON_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def problem_of(schema: Dict[str, Any], value: Any, where: str = "the body") -> Optional[str]:
    """Why `value` does not match `schema`, or None when it does."""
    unknown = set(schema) - KNOWN_KEYWORDS
    if unknown:
        return "the schema uses keywords this client does not check: %s" % ", ".join(sorted(unknown))
    if "anyOf" in schema:
        if all(problem_of(option, value, where) for option in schema["anyOf"]):
            return "%s matches none of its allowed forms" % where
    if "type" in schema and not JSON_TYPES[schema["type"]](value):
        return "%s must be %s" % (where, schema["type"])
    if "const" in schema and value != schema["const"]:
        return "%s must be %r" % (where, schema["const"])
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return "%s must be at least %s" % (where, schema["minimum"])
        if "maximum" in schema and value > schema["maximum"]:
            return "%s must be at most %s" % (where, schema["maximum"])
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            return "%s is too short" % where
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            return "%s is too long" % where
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return "%s does not match %s" % (where, schema["pattern"])
        if schema.get("format") == "uri":
            parts = urlsplit(value)
            if not parts.scheme or not (parts.netloc or parts.path):
                return "%s must be an absolute URI" % where
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                return "missing %s" % name
        for name, inner in schema.get("properties", {}).items():
            if name in value:
                found = problem_of(inner, value[name], name)
                if found:
                    return found
    return None


def checked(schema: Dict[str, Any], value: Any) -> Tuple[Optional[Dict[str, Any]], Optional[str]]:
    """The object with only the fields the schema lists, or why it is not one of the schema."""
    found = problem_of(schema, value)
    if found:
        return None, found
    known: List[str] = list(schema.get("properties", {}))
    return {name: value[name] for name in known if name in value}, None
