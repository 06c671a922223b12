// SPDX-License-Identifier: MIT
// Klarna's routes under /__sandbox/ in the control API's OpenAPI document (docs/control-api.openapi.json): the Mobile
// SDK stand-ins, the redirect_url of Klarna Payments and the hosted page's buttons, with the components they name
// (Klarna's error envelope, the SDK's result); other `#/components/...` references name the control API's shared
// parts (its error, the Sandbox-Namespace header).
import SandboxPlugIn

extension KlarnaProvider {
    package static let controlAPIPaths = #"""
{
  "paths": {
    "/__sandbox/klarna/payments/sessions/{session_id}/initialize": {
      "post": {
        "operationId": "klarnaSDK_initialize",
        "tags": ["klarna"],
        "summary": "Klarna's Mobile SDK initialize(clientToken:), played without the SDK",
        "description": "Answers what the SDK's callback would receive, as the namespace's scenario decides; a scenario's http_error answers its own status.",
        "parameters": [{"$ref": "#/components/parameters/Namespace"}, {"name": "session_id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "The session's client_token or session_id."}],
        "requestBody": {"$ref": "#/components/requestBodies/KlarnaSDKCall"},
        "responses": {"200": {"description": "The SDK's result.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaSDKResult"}}}}, "400": {"description": "A body that is not the SDK's parameters, or a Sandbox-Namespace past its bound.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}, "404": {"description": "No live session has this client token or session id in the namespace (the message names it).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}}}, "415": {"description": "A body that is not JSON.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}}
      }
    },
    "/__sandbox/klarna/payments/sessions/{session_id}/load": {
      "post": {
        "operationId": "klarnaSDK_load",
        "tags": ["klarna"],
        "summary": "Klarna's Mobile SDK load(jsonData:), played without the SDK",
        "description": "Answers what the SDK's callback would receive, as the namespace's scenario decides; a scenario's http_error answers its own status.",
        "parameters": [{"$ref": "#/components/parameters/Namespace"}, {"name": "session_id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "The session's client_token or session_id."}],
        "requestBody": {"$ref": "#/components/requestBodies/KlarnaSDKCall"},
        "responses": {"200": {"description": "The SDK's result.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaSDKResult"}}}}, "400": {"description": "A body that is not the SDK's parameters, or a Sandbox-Namespace past its bound.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}, "404": {"description": "No live session has this client token or session id in the namespace (the message names it).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}}}, "415": {"description": "A body that is not JSON.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}}
      }
    },
    "/__sandbox/klarna/payments/sessions/{session_id}/authorize": {
      "post": {
        "operationId": "klarnaSDK_authorize",
        "tags": ["klarna"],
        "summary": "Klarna's Mobile SDK authorize(autoFinalize:jsonData:), played without the SDK",
        "description": "Answers what the SDK's callback would receive, as the namespace's scenario decides; a scenario's http_error answers its own status.",
        "parameters": [{"$ref": "#/components/parameters/Namespace"}, {"name": "session_id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "The session's client_token or session_id."}],
        "requestBody": {"$ref": "#/components/requestBodies/KlarnaSDKCall"},
        "responses": {"200": {"description": "The SDK's result.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaSDKResult"}}}}, "400": {"description": "A body that is not the SDK's parameters, or a Sandbox-Namespace past its bound.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}, "404": {"description": "No live session has this client token or session id in the namespace (the message names it).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}}}, "415": {"description": "A body that is not JSON.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}}
      }
    },
    "/__sandbox/klarna/payments/sessions/{session_id}/reauthorize": {
      "post": {
        "operationId": "klarnaSDK_reauthorize",
        "tags": ["klarna"],
        "summary": "Klarna's Mobile SDK reauthorize(jsonData:), played without the SDK",
        "description": "Answers what the SDK's callback would receive, as the namespace's scenario decides; a scenario's http_error answers its own status.",
        "parameters": [{"$ref": "#/components/parameters/Namespace"}, {"name": "session_id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "The session's client_token or session_id."}],
        "requestBody": {"$ref": "#/components/requestBodies/KlarnaSDKCall"},
        "responses": {"200": {"description": "The SDK's result.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaSDKResult"}}}}, "400": {"description": "A body that is not the SDK's parameters, or a Sandbox-Namespace past its bound.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}, "404": {"description": "No live session has this client token or session id in the namespace (the message names it).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}}}, "415": {"description": "A body that is not JSON.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}}
      }
    },
    "/__sandbox/klarna/payments/sessions/{session_id}/finalize": {
      "post": {
        "operationId": "klarnaSDK_finalize",
        "tags": ["klarna"],
        "summary": "Klarna's Mobile SDK finalise(jsonData:), played without the SDK",
        "description": "Answers what the SDK's callback would receive, as the namespace's scenario decides; a scenario's http_error answers its own status.",
        "parameters": [{"$ref": "#/components/parameters/Namespace"}, {"name": "session_id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "The session's client_token or session_id."}],
        "requestBody": {"$ref": "#/components/requestBodies/KlarnaSDKCall"},
        "responses": {"200": {"description": "The SDK's result.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaSDKResult"}}}}, "400": {"description": "A body that is not the SDK's parameters, or a Sandbox-Namespace past its bound.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}}}, "401": {"$ref": "#/components/responses/Unauthorized"}, "403": {"$ref": "#/components/responses/Forbidden"}, "404": {"description": "No live session has this client token or session id in the namespace (the message names it).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}}}, "415": {"description": "A body that is not JSON.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ControlError"}}}}}
      }
    },
    "/__sandbox/klarna/payments/orders/{order_id}/redirect": {
      "get": {
        "operationId": "klarnaOrderRedirect",
        "tags": ["klarna"],
        "security": [],
        "summary": "Where a Klarna Payments order's redirect_url leads",
        "parameters": [{"name": "order_id", "in": "path", "required": true, "schema": {"type": "string"}}],
        "responses": {"303": {"description": "To the order's merchant_urls.confirmation (Location)."}, "404": {"description": "No such order.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}}}}
      }
    },
    "/__sandbox/klarna/hpp/sessions/{session_id}/pay": {
      "post": {
        "operationId": "klarnaHPP_pay",
        "tags": ["klarna"],
        "security": [],
        "summary": "The Klarna hosted page's pay button, also for tests without a browser",
        "parameters": [{"name": "session_id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "The HPP session id."}],
        "responses": {"303": {"description": "To the merchant's URL for the outcome (Location), with the session's status.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaHPPAction"}}}}, "200": {"description": "The page, when the scenario loses the redirect.", "content": {"text/html": {"schema": {"type": "string"}}}}, "400": {"description": "Bad input. A browser's form post gets the page instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}, "text/html": {"schema": {"type": "string"}}}}, "404": {"description": "No such HPP session. A browser's form post gets the page instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}, "text/html": {"schema": {"type": "string"}}}}, "409": {"description": "The session is no longer open. A browser's form post gets the page instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}, "text/html": {"schema": {"type": "string"}}}}}
      }
    },
    "/__sandbox/klarna/hpp/sessions/{session_id}/cancel": {
      "post": {
        "operationId": "klarnaHPP_cancel",
        "tags": ["klarna"],
        "security": [],
        "summary": "The Klarna hosted page's cancel button, also for tests without a browser",
        "parameters": [{"name": "session_id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "The HPP session id."}],
        "responses": {"303": {"description": "To the merchant's URL for the outcome (Location), with the session's status.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaHPPAction"}}}}, "200": {"description": "The page, when the scenario loses the redirect.", "content": {"text/html": {"schema": {"type": "string"}}}}, "400": {"description": "Bad input. A browser's form post gets the page instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}, "text/html": {"schema": {"type": "string"}}}}, "404": {"description": "No such HPP session. A browser's form post gets the page instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}, "text/html": {"schema": {"type": "string"}}}}, "409": {"description": "The session is no longer open. A browser's form post gets the page instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}, "text/html": {"schema": {"type": "string"}}}}}
      }
    },
    "/__sandbox/klarna/hpp/sessions/{session_id}/back": {
      "post": {
        "operationId": "klarnaHPP_back",
        "tags": ["klarna"],
        "security": [],
        "summary": "The Klarna hosted page's back button, also for tests without a browser",
        "parameters": [{"name": "session_id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "The HPP session id."}],
        "responses": {"303": {"description": "To the merchant's URL for the outcome (Location), with the session's status.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaHPPAction"}}}}, "200": {"description": "The page, when the scenario loses the redirect.", "content": {"text/html": {"schema": {"type": "string"}}}}, "400": {"description": "Bad input. A browser's form post gets the page instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}, "text/html": {"schema": {"type": "string"}}}}, "404": {"description": "No such HPP session. A browser's form post gets the page instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}, "text/html": {"schema": {"type": "string"}}}}, "409": {"description": "The session is no longer open. A browser's form post gets the page instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}, "text/html": {"schema": {"type": "string"}}}}}
      }
    },
    "/__sandbox/klarna/hpp/sessions/{session_id}/reject": {
      "post": {
        "operationId": "klarnaHPP_reject",
        "tags": ["klarna"],
        "security": [],
        "summary": "The Klarna hosted page's reject button, also for tests without a browser",
        "parameters": [{"name": "session_id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "The HPP session id."}],
        "responses": {"303": {"description": "To the merchant's URL for the outcome (Location), with the session's status.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaHPPAction"}}}}, "200": {"description": "The page, when the scenario loses the redirect.", "content": {"text/html": {"schema": {"type": "string"}}}}, "400": {"description": "Bad input. A browser's form post gets the page instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}, "text/html": {"schema": {"type": "string"}}}}, "404": {"description": "No such HPP session. A browser's form post gets the page instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}, "text/html": {"schema": {"type": "string"}}}}, "409": {"description": "The session is no longer open. A browser's form post gets the page instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}, "text/html": {"schema": {"type": "string"}}}}}
      }
    },
    "/__sandbox/klarna/hpp/sessions/{session_id}": {
      "post": {
        "operationId": "klarnaHPP_form",
        "tags": ["klarna"],
        "security": [],
        "summary": "The hosted page's form, for a browser that ignores formaction: its action field decides",
        "parameters": [{"name": "session_id", "in": "path", "required": true, "schema": {"type": "string"}, "description": "The HPP session id."}],
        "requestBody": {"required": true, "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "required": ["action"], "properties": {"action": {"type": "string", "enum": ["pay", "cancel", "back", "reject"]}}}}}},
        "responses": {"303": {"description": "As the button.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaHPPAction"}}}}, "200": {"description": "The page, when the scenario loses the redirect.", "content": {"text/html": {"schema": {"type": "string"}}}}, "400": {"description": "No action, or an unknown one. A browser's form post gets the page instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}, "text/html": {"schema": {"type": "string"}}}}, "404": {"description": "No such HPP session. A browser's form post gets the page instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}, "text/html": {"schema": {"type": "string"}}}}, "409": {"description": "The session is no longer open. A browser's form post gets the page instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/KlarnaError"}}, "text/html": {"schema": {"type": "string"}}}}}
      }
    }
  },
  "components": {
    "schemas": {
      "KlarnaError": {
        "type": "object",
        "description": "Klarna's error envelope (docs/klarna-api.md).",
        "required": ["error_code", "error_messages", "correlation_id"],
        "properties": {"error_code": {"type": "string"}, "error_messages": {"type": "array", "items": {"type": "string"}}, "correlation_id": {"type": "string"}}
      },
      "KlarnaSDKResult": {
        "type": "object",
        "description": "What the SDK's callback would receive.",
        "required": ["show_form"],
        "properties": {"approved": {"type": "boolean"}, "show_form": {"type": "boolean"}, "authorization_token": {"type": "string"}, "finalize_required": {"type": "boolean"}, "error": {"type": "object", "required": ["name", "action", "message", "is_fatal"], "properties": {"name": {"type": "string", "examples": ["InvalidClientTokenError", "ShowFormFalseError"]}, "action": {"type": "string"}, "message": {"type": "string"}, "is_fatal": {"type": "boolean"}}}}
      },
      "KlarnaHPPAction": {
        "type": "object",
        "required": ["status", "location"],
        "properties": {"status": {"type": "string"}, "location": {"type": ["string", "null"]}}
      }
    },
    "requestBodies": {
      "KlarnaSDKCall": {
        "required": false,
        "content": {"application/json": {"schema": {"type": "object", "description": "All optional; each key in snake_case or as the SDK spells its parameter.", "properties": {"auto_finalize": {"type": "boolean"}, "client_token": {"type": "string"}, "payment_method_category": {"type": "string"}, "json_data": {"description": "What the app passes as jsonData: an object or a JSON string.", "type": ["object", "string"]}}}}}
      }
    }
  }
}
"""#
}
