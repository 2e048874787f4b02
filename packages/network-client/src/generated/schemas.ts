/**
 * Copied from components.schemas of GET /api/network/openapi.json. Do not edit by hand:
 * pnpm --filter @pilot/network-client run generate <url or file of the document>
 */

export const AdSchema = {
  "type": "object",
  "additionalProperties": false,
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
      "type": "integer",
      "minimum": 1,
      "description": "identifier of the allocated campaign"
    },
    "title": {
      "type": "string",
      "minLength": 1,
      "maxLength": 800,
      "description": "creative title (plain text): 1 to 100 characters (user-perceived characters, grapheme clusters), at most 800 UTF-16 code units"
    },
    "text": {
      "type": "string",
      "minLength": 1,
      "maxLength": 5600,
      "description": "plain-text body: 1 to 700 characters (user-perceived characters, grapheme clusters), at most 5600 UTF-16 code units"
    },
    "button_text": {
      "type": "string",
      "minLength": 1,
      "maxLength": 256,
      "description": "button label: 1 to 32 characters (user-perceived characters, grapheme clusters), at most 256 UTF-16 code units"
    },
    "image_url": {
      "anyOf": [
        {
          "type": "string",
          "format": "uri",
          "pattern": "^https://"
        },
        {
          "type": "null"
        }
      ],
      "description": "HTTPS image link, null when the creative has no image"
    },
    "click_url": {
      "type": "string",
      "format": "uri",
      "pattern": "/api/network/click/[A-Za-z0-9._~-]+$",
      "description": "absolute click link; keep it unchanged"
    },
    "delivery_token": {
      "type": "string",
      "minLength": 1,
      "maxLength": 180,
      "description": "opaque; send it back to the delivery endpoint"
    },
    "expires_in": {
      "type": "integer",
      "const": 3600,
      "description": "seconds"
    },
    "sponsored": {
      "type": "boolean",
      "const": true
    },
    "billing": {
      "type": "string",
      "const": "pilot_non_billable"
    }
  }
} as const;

export const DeliveryConfirmedSchema = {
  "type": "object",
  "additionalProperties": false,
  "required": [
    "status",
    "first_confirmation"
  ],
  "properties": {
    "status": {
      "type": "string",
      "const": "confirmed"
    },
    "first_confirmation": {
      "type": "boolean"
    }
  }
} as const;

export const ProblemSchema = {
  "type": "object",
  "description": "RFC 9457 problem details with a stable snake_case code",
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
      "type": "integer",
      "minimum": 400,
      "maximum": 599
    },
    "detail": {
      "type": "string"
    },
    "code": {
      "type": "string",
      "pattern": "^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$"
    }
  }
} as const;
