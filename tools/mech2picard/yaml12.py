"""PyYAML reading Cantera's files as Cantera reads them: YAML 1.2's core
schema, not PyYAML's YAML 1.1. Under 1.1 the species NO (GRI-Mech 3.0)
reads as the boolean false, as would Y, N, ON and OFF, and 1e13 (no dot)
as a string; yaml-cpp, Cantera's reader, takes only true/false as
booleans and any decimal exponent form as a number."""

import re

import yaml


class Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core-schema booleans and floats."""


Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers
            if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:float")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"))
Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
               r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+0123456789."))


def load(stream):
    """The document of stream, as yaml.safe_load under YAML 1.2's core schema."""
    return yaml.load(stream, Loader=Loader)
