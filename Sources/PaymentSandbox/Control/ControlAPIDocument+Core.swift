// SPDX-License-Identifier: MIT
// The control API's OpenAPI 3.1 document, but for the providers' own routes under /__sandbox/ (each provider's
// `controlAPIPaths`). Edit it here; `payment-sandbox openapi > docs/control-api.openapi.json` writes the whole
// document, and ControlAPIDocumentTests hold both to the routes.

extension ControlAPIDocument {
    static let core = #"""
{
  "openapi": "3.1.0",
  "info": {
    "title": "payment-sandbox control API",
    "version": "1",
    "description": "Everything the sandbox adds beyond the faked Klarna and Swedbank Pay APIs, under /__sandbox/ (docs/control-api.md). Calls that act on a namespace take it from Sandbox-Namespace, else the Basic user, else the Bearer token, else `default`. With --control-token every route but health (and a provider's browser addresses) needs the token. Errors have one shape, ControlError; a provider's own routes answer in that provider's format."
  },
  "servers": [{"url": "http://127.0.0.1:8080"}],
  "security": [{}, {"controlToken": []}, {"controlTokenHeader": []}],
  "paths": {
    "/__sandbox/health": {
      "get": {
        "operationId": "health",
        "summary": "Liveness and object counts",
        "tags": ["health"],
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Health"}}}}},
        "security": []
      }
    },
    "/__sandbox/echo": {
      "get": {
        "operationId": "echo_get",
        "summary": "What the server parsed of this request",
        "tags": ["debugging"],
        "description": "Answers any method the server recognizes (also under /__sandbox/echo/…); only the common ones are listed.",
        "responses": {"200": {"description": "The request as parsed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Echo"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      },
      "post": {
        "operationId": "echo_post",
        "summary": "What the server parsed of this request",
        "tags": ["debugging"],
        "description": "Answers any method the server recognizes (also under /__sandbox/echo/…); only the common ones are listed.",
        "requestBody": {"required": false, "content": {"application/json": {"schema": {"type": "object"}}}},
        "responses": {"200": {"description": "The request as parsed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Echo"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      },
      "put": {
        "operationId": "echo_put",
        "summary": "What the server parsed of this request",
        "tags": ["debugging"],
        "description": "Answers any method the server recognizes (also under /__sandbox/echo/…); only the common ones are listed.",
        "requestBody": {"required": false, "content": {"application/json": {"schema": {"type": "object"}}}},
        "responses": {"200": {"description": "The request as parsed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Echo"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      },
      "patch": {
        "operationId": "echo_patch",
        "summary": "What the server parsed of this request",
        "tags": ["debugging"],
        "description": "Answers any method the server recognizes (also under /__sandbox/echo/…); only the common ones are listed.",
        "requestBody": {"required": false, "content": {"application/json": {"schema": {"type": "object"}}}},
        "responses": {"200": {"description": "The request as parsed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Echo"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      },
      "delete": {
        "operationId": "echo_delete",
        "summary": "What the server parsed of this request",
        "tags": ["debugging"],
        "description": "Answers any method the server recognizes (also under /__sandbox/echo/…); only the common ones are listed.",
        "responses": {"200": {"description": "The request as parsed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Echo"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/reset": {
      "post": {
        "operationId": "reset",
        "summary": "Forget the namespace's objects, clock offset, default scenario, journal and callbacks",
        "tags": ["control"],
        "parameters": [{"$ref": "#/components/parameters/Namespace"}],
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Reset"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}, "400": {"description": "Bad input: a Sandbox-Namespace past its bound (200 bytes), or as the message says.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}}
      }
    },
    "/__sandbox/clock": {
      "get": {
        "operationId": "getClock",
        "summary": "The namespace's clock",
        "tags": ["control"],
        "parameters": [{"$ref": "#/components/parameters/Namespace"}],
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Clock"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}, "400": {"description": "Bad input: a Sandbox-Namespace past its bound (200 bytes), or as the message says.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}}
      },
      "post": {
        "operationId": "moveClock",
        "summary": "Move or set the namespace's clock",
        "tags": ["control"],
        "parameters": [{"$ref": "#/components/parameters/Namespace"}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ClockChange"}}}},
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Clock"}}}}, "400": {"description": "Bad input (the message says which).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "415": {"description": "A body that is not JSON.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "507": {"description": "A bound on what clients may grow is reached.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/journal": {
      "get": {
        "operationId": "journal",
        "summary": "The namespace's newest matching calls, a page at a time, oldest first",
        "tags": ["control"],
        "parameters": [{"$ref": "#/components/parameters/Namespace"}, {"name": "method", "in": "query", "required": false, "description": "Only this method.", "schema": {"type": "string"}}, {"name": "path_prefix", "in": "query", "required": false, "description": "Only paths starting so.", "schema": {"type": "string"}}, {"name": "status", "in": "query", "required": false, "description": "Only this status.", "schema": {"type": "integer"}}, {"name": "limit", "in": "query", "required": false, "description": "At most this many (default 100; a larger number gives 1000).", "schema": {"type": "integer", "minimum": 0}}, {"name": "before", "in": "query", "required": false, "description": "Older than this sequence (next_before).", "schema": {"type": "integer"}}],
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/JournalPage"}}}}, "400": {"description": "Bad input (the message says which).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/namespaces": {
      "get": {
        "operationId": "namespaces",
        "summary": "Every namespace that holds something, by name",
        "tags": ["control"],
        "parameters": [{"name": "limit", "in": "query", "required": false, "description": "At most this many (default 100; a larger number gives 1000).", "schema": {"type": "integer", "minimum": 0}}, {"name": "after", "in": "query", "required": false, "description": "After this name (next_after).", "schema": {"type": "string"}}],
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NamespaceList"}}}}, "400": {"description": "Bad input (the message says which).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/state": {
      "get": {
        "operationId": "state",
        "summary": "Every store's objects of the namespace",
        "tags": ["control"],
        "parameters": [{"$ref": "#/components/parameters/Namespace"}, {"name": "offset", "in": "query", "required": false, "description": "Skip this many of each list.", "schema": {"type": "integer", "minimum": 0}}, {"name": "limit", "in": "query", "required": false, "description": "At most this many (default 1000; a larger number gives 10000).", "schema": {"type": "integer", "minimum": 0}}],
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/State"}}}}, "400": {"description": "Bad input (the message says which).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/scenarios": {
      "get": {
        "operationId": "scenarios",
        "summary": "The loaded scenarios and the namespace's default",
        "tags": ["scenarios"],
        "parameters": [{"$ref": "#/components/parameters/Namespace"}],
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ScenarioList"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}, "400": {"description": "Bad input: a Sandbox-Namespace past its bound (200 bytes), or as the message says.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}}
      }
    },
    "/__sandbox/scenario": {
      "put": {
        "operationId": "chooseScenario",
        "summary": "Choose the namespace's default scenario",
        "tags": ["scenarios"],
        "parameters": [{"$ref": "#/components/parameters/Namespace"}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ScenarioChoice"}}}},
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/DefaultScenario"}}}}, "400": {"description": "Bad input (the message says which).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "415": {"description": "A body that is not JSON.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "422": {"description": "No scenario of that name (the message suggests the nearest).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "507": {"description": "A bound on what clients may grow is reached.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/scenarios/reload": {
      "post": {
        "operationId": "reloadScenarios",
        "summary": "Read the scenario files again now",
        "tags": ["scenarios"],
        "parameters": [{"$ref": "#/components/parameters/Namespace"}],
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ScenarioList"}}}}, "422": {"description": "The files have problems (in `problems`); the last good set stays.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}, "400": {"description": "Bad input: a Sandbox-Namespace past its bound (200 bytes), or as the message says.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}}
      }
    },
    "/__sandbox/snapshot": {
      "post": {
        "operationId": "snapshot",
        "summary": "Write the state file now",
        "tags": ["state"],
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Snapshot"}}}}, "409": {"description": "No state file is configured (--state-file).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "500": {"description": "The write failed (the message says why); the previous file stays.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/callbacks": {
      "get": {
        "operationId": "callbacks",
        "summary": "The namespace's callback outbox, oldest first",
        "tags": ["callbacks"],
        "parameters": [{"$ref": "#/components/parameters/Namespace"}, {"name": "object", "in": "query", "required": false, "description": "Only callbacks about this object (an id, or a resource path ending in it).", "schema": {"type": "string"}}, {"name": "limit", "in": "query", "required": false, "description": "At most this many (default 100; a larger number gives 1000).", "schema": {"type": "integer", "minimum": 0}}, {"name": "after", "in": "query", "required": false, "description": "After this callback id (next_after).", "schema": {"type": "string"}}],
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CallbackList"}}}}, "400": {"description": "Bad input (the message says which).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/callbacks/{id}": {
      "get": {
        "operationId": "callback",
        "summary": "One callback with its attempts",
        "tags": ["callbacks"],
        "parameters": [{"$ref": "#/components/parameters/Namespace"}, {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "A callback id (cb_<n>)."}],
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Callback"}}}}, "404": {"description": "Not found.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}, "400": {"description": "Bad input: a Sandbox-Namespace past its bound (200 bytes), or as the message says.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}}
      }
    },
    "/__sandbox/callbacks/{id}/deliver": {
      "post": {
        "operationId": "deliverCallback",
        "summary": "Make one call of the callback now, to its URL or another",
        "tags": ["callbacks"],
        "parameters": [{"$ref": "#/components/parameters/Namespace"}, {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "A callback id (cb_<n>)."}],
        "requestBody": {"required": false, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Delivery"}}}},
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/DeliveryResult"}}}}, "400": {"description": "Bad input (the message says which).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "404": {"description": "Not found.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "415": {"description": "A body that is not JSON.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/ui": {
      "get": {
        "operationId": "page",
        "summary": "The page: every namespace",
        "tags": ["page"],
        "parameters": [{"name": "after", "in": "query", "required": false, "description": "After this namespace (the page's next link).", "schema": {"type": "string"}}, {"name": "limit", "in": "query", "required": false, "description": "At most this many namespaces.", "schema": {"type": "integer", "minimum": 0}}, {"name": "token", "in": "query", "required": false, "description": "The control token, once (then a cookie).", "schema": {"type": "string"}}],
        "responses": {"200": {"description": "The page.", "content": {"text/html": {"schema": {"type": "string"}}}}, "303": {"description": "Back to the page (Location)."}, "400": {"description": "Bad input (the page says which).", "content": {"text/html": {"schema": {"type": "string"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/ui/namespace": {
      "get": {
        "operationId": "namespacePage",
        "summary": "The page of one namespace",
        "tags": ["page"],
        "parameters": [{"name": "name", "in": "query", "required": false, "description": "The namespace.", "schema": {"type": "string"}}, {"name": "token", "in": "query", "required": false, "description": "The control token, once (then a cookie).", "schema": {"type": "string"}}],
        "responses": {"200": {"description": "The page.", "content": {"text/html": {"schema": {"type": "string"}}}}, "303": {"description": "Back to the page (Location)."}, "400": {"description": "Bad input (the page says which).", "content": {"text/html": {"schema": {"type": "string"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/ui/scenario": {
      "post": {
        "operationId": "page_scenario",
        "summary": "The page's scenario form",
        "tags": ["page"],
        "requestBody": {"required": true, "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "required": ["namespace", "csrf"], "properties": {"namespace": {"type": "string"}, "csrf": {"type": "string"}, "name": {"type": "string"}}}}}},
        "responses": {"303": {"description": "Back to the page (Location)."}, "400": {"description": "Bad input (the message says which).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "415": {"description": "A body that is not JSON.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "422": {"description": "Unprocessable.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "507": {"description": "A bound on what clients may grow is reached.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/ui/clock": {
      "post": {
        "operationId": "page_clock",
        "summary": "The page's clock form",
        "tags": ["page"],
        "requestBody": {"required": true, "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "required": ["namespace", "csrf"], "properties": {"namespace": {"type": "string"}, "csrf": {"type": "string"}, "advance_seconds": {"type": "string"}, "now": {"type": "string"}}}}}},
        "responses": {"303": {"description": "Back to the page (Location)."}, "400": {"description": "Bad input (the message says which).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "415": {"description": "A body that is not JSON.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "422": {"description": "Unprocessable.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "507": {"description": "A bound on what clients may grow is reached.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/ui/reset": {
      "post": {
        "operationId": "page_reset",
        "summary": "The page's reset form",
        "tags": ["page"],
        "requestBody": {"required": true, "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "required": ["namespace", "csrf"], "properties": {"namespace": {"type": "string"}, "csrf": {"type": "string"}}}}}},
        "responses": {"303": {"description": "Back to the page (Location)."}, "400": {"description": "Bad input (the message says which).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "415": {"description": "A body that is not JSON.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "422": {"description": "Unprocessable.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "507": {"description": "A bound on what clients may grow is reached.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/verify": {
      "post": {
        "operationId": "verifyRequests",
        "summary": "Whether the journal holds a count of requests matching a pattern; when not, the nearest and why each missed",
        "tags": ["verification"],
        "parameters": [{"$ref": "#/components/parameters/Namespace"}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["pattern"], "properties": {"pattern": {"$ref": "#/components/schemas/RequestPattern"}, "count": {"$ref": "#/components/schemas/ExpectedCount"}, "namespace": {"type": "string", "description": "The namespace to search (else the call's own)."}}}}}},
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RequestVerification"}}}}, "400": {"description": "Bad input (the message says which).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "415": {"description": "A body that is not JSON.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/callbacks/verify": {
      "post": {
        "operationId": "verifyCallbacks",
        "summary": "The same for the callback outbox",
        "tags": ["verification"],
        "parameters": [{"$ref": "#/components/parameters/Namespace"}],
        "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["pattern"], "properties": {"pattern": {"$ref": "#/components/schemas/CallbackPattern"}, "count": {"$ref": "#/components/schemas/ExpectedCount"}, "namespace": {"type": "string", "description": "The namespace to search (else the call's own)."}}}}}},
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CallbackVerification"}}}}, "400": {"description": "Bad input (the message says which).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "415": {"description": "A body that is not JSON.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/journal/wait": {
      "get": {
        "operationId": "waitForRequest",
        "summary": "The namespace's oldest request matching the pattern, as soon as there is one",
        "tags": ["verification"],
        "parameters": [{"$ref": "#/components/parameters/Namespace"}, {"name": "timeout", "in": "query", "required": false, "description": "Seconds to wait (default 10, at most 30).", "schema": {"type": "number", "minimum": 0, "maximum": 30}}, {"name": "after", "in": "query", "required": false, "description": "Only entries journaled after this sequence.", "schema": {"type": "integer"}}, {"name": "pattern", "in": "query", "required": false, "style": "form", "explode": true, "description": "method, path, path_prefix, status, query.<name>, header.<name>, body.<field> (equals; JSON when it parses, else a string).", "schema": {"type": "object", "additionalProperties": {"type": "string"}}}],
        "responses": {"200": {"description": "The match.", "content": {"application/json": {"schema": {"type": "object", "required": ["namespace", "entry"], "properties": {"namespace": {"type": "string"}, "entry": {"$ref": "#/components/schemas/JournalEntry"}}}}}}, "400": {"description": "Bad input (the message says which).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "408": {"description": "Nothing matched in time, with the nearest misses.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/WaitTimeout"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/callbacks/wait": {
      "get": {
        "operationId": "waitForCallback",
        "summary": "The namespace's oldest callback matching the pattern, as soon as there is one",
        "tags": ["verification"],
        "parameters": [{"$ref": "#/components/parameters/Namespace"}, {"name": "timeout", "in": "query", "required": false, "description": "Seconds to wait (default 10, at most 30).", "schema": {"type": "number", "minimum": 0, "maximum": 30}}, {"name": "pattern", "in": "query", "required": false, "style": "form", "explode": true, "description": "operation, object, state, url, body.<field>.", "schema": {"type": "object", "additionalProperties": {"type": "string"}}}],
        "responses": {"200": {"description": "The match.", "content": {"application/json": {"schema": {"type": "object", "required": ["namespace", "callback"], "properties": {"namespace": {"type": "string"}, "callback": {"$ref": "#/components/schemas/Callback"}}}}}}, "400": {"description": "Bad input (the message says which).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}, "408": {"description": "Nothing matched in time, with the nearest misses.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/WaitTimeout"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/metrics": {
      "get": {
        "operationId": "metrics",
        "summary": "The sandbox's figures in the Prometheus text format 0.0.4",
        "tags": ["metrics"],
        "responses": {"200": {"description": "Counters, gauges and a histogram; no namespace or id labels.", "content": {"text/plain": {"schema": {"type": "string"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    },
    "/__sandbox/openapi.json": {
      "get": {
        "operationId": "openapi",
        "summary": "This document",
        "tags": ["documentation"],
        "responses": {"200": {"description": "The control API's OpenAPI 3.1 document.", "content": {"application/json": {"schema": {"type": "object"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}}
      }
    }
  },
  "components": {
    "schemas": {
      "ControlError": {
        "type": "object",
        "description": "Every error of the control API.",
        "required": ["error", "message", "status"],
        "properties": {"error": {"type": "string", "description": "The status's reason phrase.", "examples": ["Bad Request"]}, "message": {"type": "string", "description": "What was wrong and what to send instead."}, "status": {"type": "integer", "description": "The HTTP status, again."}, "problems": {"type": "array", "items": {"type": "string"}, "description": "Scenario reload only: each problem of the files."}}
      },
      "Health": {
        "type": "object",
        "required": ["status", "version", "uptime_seconds", "objects"],
        "properties": {"status": {"const": "ok"}, "version": {"type": "string"}, "uptime_seconds": {"type": "integer", "minimum": 0}, "objects": {"type": "object", "required": ["held", "max", "evicted"], "properties": {"held": {"type": "integer"}, "max": {"type": ["integer", "null"]}, "evicted": {"type": "integer"}}}}
      },
      "Clock": {
        "type": "object",
        "required": ["namespace", "now", "offset_seconds"],
        "properties": {"namespace": {"type": "string"}, "now": {"type": "string", "format": "date-time"}, "offset_seconds": {"type": "number"}}
      },
      "ClockChange": {
        "type": "object",
        "description": "Exactly one of advance_seconds or now; the clock stays within 1970 to the start of 9999.",
        "properties": {"advance_seconds": {"type": "number", "description": "Seconds to move the clock by (negative: back)."}, "now": {"type": "string", "description": "ISO 8601 date-time to set the clock to.", "examples": ["2027-01-15T08:00:00Z"]}},
        "examples": [{"advance_seconds": 3600}, {"now": "2027-01-15T08:00:00Z"}]
      },
      "Reset": {
        "type": "object",
        "required": ["namespace", "reset"],
        "properties": {"namespace": {"type": "string"}, "reset": {"const": true}}
      },
      "JournalEntry": {
        "type": "object",
        "required": ["sequence", "time", "request_id", "method", "path", "path_truncated", "query", "query_truncated", "status", "duration_ms", "request_body", "request_body_truncated", "note"],
        "properties": {"sequence": {"type": "integer"}, "time": {"type": "string", "format": "date-time"}, "request_id": {"type": "string"}, "method": {"type": "string", "description": "The request's method, or CALLBACK / EVICTED for what the sandbox did itself."}, "path": {"type": "string"}, "path_truncated": {"type": "boolean"}, "query": {"type": ["string", "null"]}, "query_truncated": {"type": "boolean"}, "status": {"type": "integer"}, "duration_ms": {"type": "number"}, "request_body": {"type": "string"}, "request_body_truncated": {"type": "boolean"}, "note": {"type": "string", "description": "The scenario decision, if one was played."}}
      },
      "JournalPage": {
        "type": "object",
        "required": ["namespace", "capacity", "dropped", "entries", "limit", "more", "next_before"],
        "properties": {"namespace": {"type": "string"}, "capacity": {"type": "integer"}, "dropped": {"type": "integer"}, "entries": {"type": "array", "items": {"$ref": "#/components/schemas/JournalEntry"}}, "limit": {"type": "integer"}, "more": {"type": "boolean"}, "next_before": {"type": ["integer", "null"]}}
      },
      "NamespaceList": {
        "type": "object",
        "required": ["total", "namespaces", "limit", "more", "next_after"],
        "properties": {"total": {"type": "integer"}, "namespaces": {"type": "array", "items": {"type": "object", "required": ["name", "objects", "journal_entries", "offset_seconds", "default_scenario"], "properties": {"name": {"type": "string"}, "objects": {"type": "integer"}, "journal_entries": {"type": "integer"}, "offset_seconds": {"type": "number"}, "default_scenario": {"type": ["string", "null"]}}}}, "limit": {"type": "integer"}, "more": {"type": "boolean"}, "next_after": {"type": ["string", "null"]}}
      },
      "State": {
        "type": "object",
        "description": "The namespace's objects: one member per store (its lists are pages), besides those named here.",
        "required": ["namespace", "now", "offset", "limit", "more", "next_offset"],
        "properties": {"namespace": {"type": "string"}, "now": {"type": "string", "format": "date-time"}, "offset": {"type": "integer"}, "limit": {"type": "integer"}, "more": {"type": "boolean"}, "next_offset": {"type": ["integer", "null"]}},
        "additionalProperties": {"type": "object"}
      },
      "ScenarioList": {
        "type": "object",
        "required": ["namespace", "default_scenario", "directories", "scenarios", "reload_problems"],
        "properties": {"namespace": {"type": "string"}, "default_scenario": {"type": ["string", "null"]}, "directories": {"type": "array", "items": {"type": "string"}}, "scenarios": {"type": "array", "items": {"type": "object", "required": ["name", "description", "file", "operations"], "properties": {"name": {"type": "string"}, "description": {"type": "string"}, "file": {"type": "string"}, "operations": {"type": "array", "items": {"type": "string"}}}}}, "reload_problems": {"type": "array", "items": {"type": "string"}}}
      },
      "ScenarioChoice": {
        "type": "object",
        "required": ["name"],
        "properties": {"name": {"type": ["string", "null"], "description": "A loaded scenario's name; null clears the namespace's default.", "examples": ["reject", null]}}
      },
      "DefaultScenario": {
        "type": "object",
        "required": ["namespace", "default_scenario"],
        "properties": {"namespace": {"type": "string"}, "default_scenario": {"type": ["string", "null"]}}
      },
      "Snapshot": {
        "type": "object",
        "required": ["path", "bytes", "namespaces", "objects", "write"],
        "properties": {"path": {"type": "string"}, "bytes": {"type": "integer"}, "namespaces": {"type": "integer"}, "objects": {"type": "integer"}, "write": {"type": "integer", "description": "The write's number: requests that arrive during a write share it."}}
      },
      "CallbackAttempt": {
        "type": "object",
        "required": ["time", "url", "status", "error", "delivered", "simulated", "manual", "duration_ms", "note", "answer"],
        "properties": {"time": {"type": "string", "format": "date-time"}, "url": {"type": "string"}, "status": {"type": ["integer", "null"]}, "error": {"type": ["string", "null"]}, "delivered": {"type": "boolean"}, "simulated": {"type": "boolean"}, "manual": {"type": "boolean"}, "duration_ms": {"type": "number"}, "note": {"type": ["string", "null"]}, "answer": {"type": ["string", "null"]}}
      },
      "Callback": {
        "type": "object",
        "required": ["id", "object", "operation", "description", "url", "headers", "body", "created", "state", "due", "scenario", "attempts", "attempt_count", "last_result"],
        "properties": {"id": {"type": "string", "examples": ["cb_1"]}, "object": {"type": "string"}, "operation": {"type": "string"}, "description": {"type": "string"}, "url": {"type": "string"}, "headers": {"type": "object", "additionalProperties": {"type": "string"}}, "body": {"description": "The callback's body: JSON when it is JSON, else its text."}, "created": {"type": "string", "format": "date-time"}, "state": {"type": "string", "enum": ["pending", "held", "delivered", "failed"]}, "due": {"type": ["string", "null"]}, "scenario": {"type": ["string", "null"]}, "attempts": {"type": "array", "items": {"$ref": "#/components/schemas/CallbackAttempt"}}, "attempt_count": {"type": "integer"}, "last_result": {"oneOf": [{"$ref": "#/components/schemas/CallbackAttempt"}, {"type": "null"}]}}
      },
      "CallbackList": {
        "type": "object",
        "required": ["namespace", "capacity", "capacity_per_namespace", "evicted", "callbacks", "limit", "more", "next_after"],
        "properties": {"namespace": {"type": "string"}, "capacity": {"type": "integer"}, "capacity_per_namespace": {"type": "integer"}, "evicted": {"type": "integer"}, "callbacks": {"type": "array", "items": {"$ref": "#/components/schemas/Callback"}}, "limit": {"type": "integer"}, "more": {"type": "boolean"}, "next_after": {"type": ["string", "null"]}}
      },
      "Delivery": {
        "type": "object",
        "properties": {"url": {"type": "string", "description": "Where to send it instead (an absolute http(s) URL)."}}
      },
      "DeliveryResult": {
        "type": "object",
        "required": ["attempt", "callback"],
        "properties": {"attempt": {"$ref": "#/components/schemas/CallbackAttempt"}, "callback": {"$ref": "#/components/schemas/Callback"}}
      },
      "Echo": {
        "type": "object",
        "required": ["request_id", "method", "target", "path", "query", "version", "headers", "trailers", "body_length", "body_base64"],
        "properties": {"request_id": {"type": "string"}, "method": {"type": "string"}, "target": {"type": "string"}, "path": {"type": "string"}, "query": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}, "version": {"type": "string"}, "headers": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}, "trailers": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}, "body_length": {"type": "integer"}, "body_base64": {"type": "string"}}
      },
      "RequestPattern": {
        "type": "object",
        "description": "Every criterion given must hold.",
        "additionalProperties": false,
        "properties": {"method": {"type": "string"}, "path": {"type": "string", "description": "The decoded path; a {name} segment matches any one segment."}, "path_prefix": {"type": "string"}, "status": {"type": "integer"}, "query": {"type": "object", "additionalProperties": {"type": "string"}}, "headers": {"type": "object", "additionalProperties": {"type": "string"}}, "body": {"type": "array", "items": {"type": "object", "description": "One field of the JSON body, by the paths scenario files use; exactly one test.", "required": ["path"], "properties": {"path": {"type": "string", "examples": ["order_lines[0].quantity"]}, "equals": {"description": "The field's value is this JSON value."}, "contains": {"description": "A substring of a string, or an element of an array."}, "absent": {"type": "boolean", "const": true}}}}}
      },
      "CallbackPattern": {
        "type": "object",
        "description": "Every criterion given must hold.",
        "additionalProperties": false,
        "properties": {"operation": {"type": "string"}, "object": {"type": "string"}, "state": {"type": "string", "enum": ["pending", "held", "delivered", "failed"]}, "url": {"type": "string"}, "body": {"type": "array", "items": {"type": "object", "description": "One field of the JSON body, by the paths scenario files use; exactly one test.", "required": ["path"], "properties": {"path": {"type": "string", "examples": ["order_lines[0].quantity"]}, "equals": {"description": "The field's value is this JSON value."}, "contains": {"description": "A substring of a string, or an element of an array."}, "absent": {"type": "boolean", "const": true}}}}}
      },
      "ExpectedCount": {
        "type": "object",
        "description": "exactly, or at_least and/or at_most; at least 1 when left out.",
        "properties": {"exactly": {"type": "integer", "minimum": 0}, "at_least": {"type": "integer", "minimum": 0}, "at_most": {"type": "integer", "minimum": 0}}
      },
      "NearMiss": {
        "type": "object",
        "description": "An entry (or a callback) that held the most criteria, and why the rest missed.",
        "required": ["matched", "reasons", "summary"],
        "properties": {"entry": {"$ref": "#/components/schemas/JournalEntry"}, "callback": {"$ref": "#/components/schemas/Callback"}, "matched": {"type": "array", "items": {"type": "string"}}, "reasons": {"type": "array", "items": {"type": "string"}}, "summary": {"type": "string"}}
      },
      "RequestVerification": {
        "type": "object",
        "required": ["namespace", "held", "count", "expected", "message", "matches", "matches_truncated", "near_misses", "searched", "journal"],
        "properties": {"namespace": {"type": "string"}, "held": {"type": "boolean"}, "count": {"type": "integer"}, "expected": {"type": "object", "required": ["at_least", "at_most"], "properties": {"at_least": {"type": "integer"}, "at_most": {"type": ["integer", "null"]}}}, "message": {"type": "string"}, "matches": {"type": "array", "items": {"$ref": "#/components/schemas/JournalEntry"}}, "matches_truncated": {"type": "boolean"}, "near_misses": {"type": "array", "items": {"$ref": "#/components/schemas/NearMiss"}}, "searched": {"type": "integer"}, "journal": {"type": "object", "required": ["capacity", "dropped"], "properties": {"capacity": {"type": "integer"}, "dropped": {"type": "integer"}}}}
      },
      "CallbackVerification": {
        "type": "object",
        "required": ["namespace", "held", "count", "expected", "message", "matches", "matches_truncated", "near_misses", "searched", "outbox"],
        "properties": {"namespace": {"type": "string"}, "held": {"type": "boolean"}, "count": {"type": "integer"}, "expected": {"type": "object", "required": ["at_least", "at_most"], "properties": {"at_least": {"type": "integer"}, "at_most": {"type": ["integer", "null"]}}}, "message": {"type": "string"}, "matches": {"type": "array", "items": {"$ref": "#/components/schemas/Callback"}}, "matches_truncated": {"type": "boolean"}, "near_misses": {"type": "array", "items": {"$ref": "#/components/schemas/NearMiss"}}, "searched": {"type": "integer"}, "outbox": {"type": "object", "required": ["capacity_per_namespace", "evicted"], "properties": {"capacity_per_namespace": {"type": "integer"}, "evicted": {"type": "integer"}}}}
      },
      "WaitTimeout": {
        "type": "object",
        "required": ["error", "message", "status", "timeout_seconds", "near_misses"],
        "properties": {"error": {"type": "string"}, "message": {"type": "string"}, "status": {"const": 408}, "timeout_seconds": {"type": "number"}, "near_misses": {"type": "array", "items": {"$ref": "#/components/schemas/NearMiss"}}}
      }
    },
    "parameters": {
      "Namespace": {
        "name": "Sandbox-Namespace",
        "in": "header",
        "required": false,
        "schema": {"type": "string", "maxLength": 200},
        "description": "The namespace to act on (else the Basic user, the Bearer token, or `default`)."
      }
    },
    "responses": {
      "Unauthorized": {
        "description": "The control token is missing or wrong (only when the sandbox has one).",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}
      },
      "Forbidden": {
        "description": "A request a web page of another site could make (its Host, Origin or Sec-Fetch-Site).",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}
      }
    },
    "securitySchemes": {
      "controlToken": {
        "type": "http",
        "scheme": "bearer",
        "description": "--control-token, as Authorization: Bearer."
      },
      "controlTokenHeader": {
        "type": "apiKey",
        "in": "header",
        "name": "Sandbox-Control-Token"
      }
    }
  }
}
"""#
}
