/**
 * Copied from components.schemas of GET /api/network/openapi.json. Do not edit by hand:
 * pnpm --filter @pilot/network-client run generate <url or file of the document>
 */

export const AdSchema = {
  "description": "The network may add fields to this object without notice: ignore the ones you do not know.",
  "type": "object",
  "required": [
    "campaign_id",
    "title",
    "text",
    "button_text",
    "image_url",
    "click_url",
    "delivery_token",
    "expires_in",
    "sponsored",
    "billing"
  ],
  "properties": {
    "campaign_id": {
      "minimum": 1,
      "description": "identifier of the allocated campaign",
      "type": "integer"
    },
    "title": {
      "minLength": 1,
      "maxLength": 800,
      "description": "creative title (plain text): 1 to 100 characters (user-perceived characters, grapheme clusters), at most 800 UTF-16 code units",
      "type": "string"
    },
    "text": {
      "minLength": 1,
      "maxLength": 5600,
      "description": "plain-text body: 1 to 700 characters (user-perceived characters, grapheme clusters), at most 5600 UTF-16 code units",
      "type": "string"
    },
    "button_text": {
      "minLength": 1,
      "maxLength": 256,
      "description": "button label: 1 to 32 characters (user-perceived characters, grapheme clusters), at most 256 UTF-16 code units",
      "type": "string"
    },
    "image_url": {
      "description": "HTTPS image link, null when the creative has no image",
      "anyOf": [
        {
          "format": "uri",
          "pattern": "^https://",
          "type": "string"
        },
        {
          "type": "null"
        }
      ]
    },
    "click_url": {
      "format": "uri",
      "pattern": "/api/network/click/[A-Za-z0-9._~-]+$",
      "description": "absolute click link; keep it unchanged",
      "type": "string"
    },
    "delivery_token": {
      "minLength": 1,
      "maxLength": 180,
      "description": "opaque; send it back to the delivery endpoint",
      "type": "string"
    },
    "expires_in": {
      "type": "integer",
      "const": 3600,
      "description": "seconds"
    },
    "sponsored": {
      "const": true,
      "type": "boolean"
    },
    "billing": {
      "const": "pilot_non_billable",
      "type": "string"
    }
  }
} as const;

export const DeliveryConfirmedSchema = {
  "description": "The network may add fields to this object without notice: ignore the ones you do not know.",
  "type": "object",
  "required": [
    "status",
    "first_confirmation"
  ],
  "properties": {
    "status": {
      "const": "confirmed",
      "type": "string"
    },
    "first_confirmation": {
      "type": "boolean"
    }
  }
} as const;

export const ProblemSchema = {
  "description": "RFC 9457 problem details with a stable snake_case code",
  "type": "object",
  "required": [
    "type",
    "title",
    "status",
    "detail",
    "code"
  ],
  "properties": {
    "type": {
      "type": "string"
    },
    "title": {
      "type": "string"
    },
    "status": {
      "minimum": 400,
      "maximum": 599,
      "type": "integer"
    },
    "detail": {
      "type": "string"
    },
    "code": {
      "pattern": "^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$",
      "type": "string"
    }
  }
} as const;
