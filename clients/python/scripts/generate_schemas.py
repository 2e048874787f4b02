"""Copies the schemas the client checks answers with from the network API's OpenAPI document into
src/pilot_network_client/schemas.py. The system test fails when the committed copy differs from the
document the running system serves.

    python3 scripts/generate_schemas.py http://127.0.0.1:8080/api/network/openapi.json
    python3 scripts/generate_schemas.py ./openapi.json
"""
import json
import os
import sys
import urllib.request

TARGET = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src", "pilot_network_client", "schemas.py")
COPIED = [("AD_SCHEMA", "Ad"), ("DELIVERY_CONFIRMED_SCHEMA", "DeliveryConfirmed"), ("PROBLEM_SCHEMA", "Problem")]


def render(document):
    schemas = document["components"]["schemas"]
    lines = [
        '"""Copied from components.schemas of GET /api/network/openapi.json. Do not edit by hand:',
        'python3 scripts/generate_schemas.py <url or file of the document>"""',
        "import json",
        "from typing import Any, Dict",
        "",
    ]
    for constant, name in COPIED:
        lines.append('%s: Dict[str, Any] = json.loads(r"""%s""")' % (constant, json.dumps(schemas[name], indent=2, ensure_ascii=False)))
    return "\n".join(lines) + "\n"


def load(source):
    if source.startswith(("http://", "https://")):
        with urllib.request.urlopen(source, timeout=10) as response:
            return json.load(response)
    with open(source, encoding="utf-8") as file:
        return json.load(file)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: generate_schemas.py <url or file of the OpenAPI document>")
    with open(TARGET, "w", encoding="utf-8") as out:
        out.write(render(load(sys.argv[1])))
    print("wrote %s" % TARGET)
