package networkclient

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

// schemas.json holds components.schemas Ad, DeliveryConfirmed and Problem of the network API's OpenAPI
// document, copied unchanged; the system test fails when they differ from the document the system serves.
//
//go:embed schemas.json
var schemasJSON []byte

// Schemas are the copied component schemas, by name.
var Schemas = func() map[string]map[string]any {
	var schemas map[string]map[string]any
	if err := json.Unmarshal(schemasJSON, &schemas); err != nil {
		panic(err)
	}
	return schemas
}()

var knownKeywords = map[string]bool{
	"type": true, "required": true, "properties": true, "description": true, "minimum": true, "maximum": true,
	"minLength": true, "maxLength": true, "pattern": true, "format": true, "const": true, "anyOf": true,
}

// problemOf says why value (decoded JSON) does not match schema, or "" when it does. Only the keywords the
// copied schemas use are understood; any other is a failure, never a silently weaker check.
func problemOf(schema map[string]any, value any, where string) string {
	var unknown []string
	for keyword := range schema {
		if !knownKeywords[keyword] {
			unknown = append(unknown, keyword)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return "the schema uses keywords this client does not check: " + strings.Join(unknown, ", ")
	}
	if options, ok := schema["anyOf"].([]any); ok {
		matched := false
		for _, option := range options {
			if problemOf(option.(map[string]any), value, where) == "" {
				matched = true
			}
		}
		if !matched {
			return where + " matches none of its allowed forms"
		}
	}
	if kind, ok := schema["type"].(string); ok && !hasType(kind, value) {
		return where + " must be " + kind
	}
	if constant, ok := schema["const"]; ok && fmt.Sprint(constant) != fmt.Sprint(value) {
		return fmt.Sprintf("%s must be %v", where, constant)
	}
	if number, ok := value.(float64); ok {
		if minimum, ok := schema["minimum"].(float64); ok && number < minimum {
			return fmt.Sprintf("%s must be at least %v", where, minimum)
		}
		if maximum, ok := schema["maximum"].(float64); ok && number > maximum {
			return fmt.Sprintf("%s must be at most %v", where, maximum)
		}
	}
	if text, ok := value.(string); ok {
		length := float64(utf8.RuneCountInString(text)) // JSON Schema counts code points
		if minimum, ok := schema["minLength"].(float64); ok && length < minimum {
			return where + " is too short"
		}
		if maximum, ok := schema["maxLength"].(float64); ok && length > maximum {
			return where + " is too long"
		}
		if pattern, ok := schema["pattern"].(string); ok && !regexp.MustCompile(pattern).MatchString(text) {
			return where + " does not match " + pattern
		}
		if schema["format"] == "uri" {
			if parsed, err := url.Parse(text); err != nil || !parsed.IsAbs() {
				return where + " must be an absolute URI"
			}
		}
	}
	if object, ok := value.(map[string]any); ok {
		if required, ok := schema["required"].([]any); ok {
			for _, name := range required {
				if _, present := object[name.(string)]; !present {
					return "missing " + name.(string)
				}
			}
		}
		if properties, ok := schema["properties"].(map[string]any); ok {
			for name, inner := range properties {
				if field, present := object[name]; present {
					if found := problemOf(inner.(map[string]any), field, name); found != "" {
						return found
					}
				}
			}
		}
	}
	return ""
}

func hasType(kind string, value any) bool {
	switch kind {
	case "object":
		_, ok := value.(map[string]any)
		return ok
	case "string":
		_, ok := value.(string)
		return ok
	case "boolean":
		_, ok := value.(bool)
		return ok
	case "null":
		return value == nil
	case "integer":
		number, ok := value.(float64)
		return ok && number == math.Trunc(number)
	}
	return false
}

// decodeChecked checks body against the named schema, then decodes it into out (unknown fields ignored).
func decodeChecked(name string, status int, body []byte, out any) error {
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		return &UnexpectedResponseError{Status: status, Message: "the body is not valid JSON"}
	}
	if problem := problemOf(Schemas[name], value, "the body"); problem != "" {
		return &UnexpectedResponseError{Status: status, Message: "the answer is not " + name + ": " + problem}
	}
	return json.Unmarshal(body, out)
}
