"""Schemas the real peers send (copied verbatim, JSON-ified), so the tests exercise real shapes.

* ``EVERYTHING``: server-everything's ``trigger-elicitation-request`` (13 field types),
  tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/tools/trigger-elicitation-request.js
* ``SEP1034``/``SEP1330``: the conformance suite's defaults and enum scenarios (shared/reference/peers.md).
"""

from __future__ import annotations

EVERYTHING_MESSAGE = "Please provide inputs for the following fields:"

EVERYTHING = {
    "type": "object",
    "properties": {
        "name": {"title": "String", "type": "string", "description": "Your full, legal name"},
        "check": {"title": "Boolean", "type": "boolean", "description": "Agree to the terms and conditions"},
        "firstLine": {
            "title": "String with default",
            "type": "string",
            "description": "Favorite first line of a story",
            "default": "It was a dark and stormy night.",
        },
        "email": {
            "title": "String with email format",
            "type": "string",
            "format": "email",
            "description": "Your email address (will be verified, and never shared with anyone else)",
        },
        "homepage": {
            "type": "string",
            "format": "uri",
            "title": "String with uri format",
            "description": "Portfolio / personal website",
        },
        "birthdate": {
            "title": "String with date format",
            "type": "string",
            "format": "date",
            "description": "Your date of birth",
        },
        "integer": {
            "title": "Integer",
            "type": "integer",
            "description": (
                "Your favorite integer (do not give us your phone number, pin, or other sensitive info)"
            ),
            "minimum": 1,
            "maximum": 100,
            "default": 42,
        },
        "number": {
            "title": "Number in range 1-1000",
            "type": "number",
            "description": "Favorite number (there are no wrong answers)",
            "minimum": 0,
            "maximum": 1000,
            "default": 3.14,
        },
        "untitledSingleSelectEnum": {
            "type": "string",
            "title": "Untitled Single Select Enum",
            "description": "Choose your favorite friend",
            "enum": ["Monica", "Rachel", "Joey", "Chandler", "Ross", "Phoebe"],
            "default": "Monica",
        },
        "untitledMultipleSelectEnum": {
            "type": "array",
            "title": "Untitled Multiple Select Enum",
            "description": "Choose your favorite instruments",
            "minItems": 1,
            "maxItems": 3,
            "items": {"type": "string", "enum": ["Guitar", "Piano", "Violin", "Drums", "Bass"]},
            "default": ["Guitar"],
        },
        "titledSingleSelectEnum": {
            "type": "string",
            "title": "Titled Single Select Enum",
            "description": "Choose your favorite hero",
            "oneOf": [
                {"const": "hero-1", "title": "Superman"},
                {"const": "hero-2", "title": "Green Lantern"},
                {"const": "hero-3", "title": "Wonder Woman"},
            ],
            "default": "hero-1",
        },
        "titledMultipleSelectEnum": {
            "type": "array",
            "title": "Titled Multiple Select Enum",
            "description": "Choose your favorite types of fish",
            "minItems": 1,
            "maxItems": 3,
            "items": {
                "anyOf": [
                    {"const": "fish-1", "title": "Tuna"},
                    {"const": "fish-2", "title": "Salmon"},
                    {"const": "fish-3", "title": "Trout"},
                ]
            },
            "default": ["fish-1"],
        },
        "legacyTitledEnum": {
            "type": "string",
            "title": "Legacy Titled Single Select Enum",
            "description": "Choose your favorite type of pet",
            "enum": ["pet-1", "pet-2", "pet-3", "pet-4", "pet-5"],
            "enumNames": ["Cats", "Dogs", "Birds", "Fish", "Reptiles"],
            "default": "pet-1",
        },
    },
    "required": ["name"],
}

SEP1034 = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "description": "Verified", "default": True},
    },
}

SEP1330 = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                ]
            },
        },
    },
}

#: The conformance suite's ``test_elicitation`` (both required, no defaults).
CONFORMANCE_BASIC = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}
