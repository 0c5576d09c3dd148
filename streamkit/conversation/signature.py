"""A Python function's parameters as a JSON schema and a validating pydantic model.

:func:`bind` reads a typed function's signature (string annotations evaluated
where the function is defined) into a pydantic model of its parameters and
that model's JSON schema; :func:`~streamkit.conversation.tools.tool` and
:meth:`~streamkit.conversation.tools.Tool.run_json` use the :class:`Binding`. What the
schema says, and what fails when the tool is defined, is in
:mod:`streamkit.conversation.tools`.

:func:`inline_refs` replaces a schema's local ``$ref`` s by their definitions,
for servers that drop ``$ref``.

pydantic (the largest import streamkit could make) is imported by the functions
that use it, so ``import streamkit`` does not pay for it: it comes with the
first tool defined (tests/conversation/test_tools.py checks what ``import streamkit`` loads).
"""

from __future__ import annotations

import copy
import functools
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, get_origin

from ..model.errors import ToolDefinitionError
from .docstrings import parameter_docs

if TYPE_CHECKING:
    import pydantic
    from pydantic.fields import FieldInfo
    from pydantic.json_schema import GenerateJsonSchema

__all__ = ["Binding", "bind", "inline_refs"]


@dataclass(frozen=True)
class Binding:
    """How JSON arguments become a call: the validating model and, per field,
    the parameter it fills."""

    model: type[pydantic.BaseModel]
    fields: tuple[tuple[str, str, bool], ...]  # (model field, parameter, positional-only)
    schema: dict[str, Any]  # the non-strict schema: which properties may be left out
    is_async: bool


@functools.cache
def _schema_generator() -> type[GenerateJsonSchema]:
    """pydantic's schema generator without a ``title`` per property (it only
    repeats the name, and costs tokens in every request); model titles stay.
    Made when the first tool is defined, not when this module is imported."""
    from pydantic.json_schema import GenerateJsonSchema
    from pydantic_core import CoreSchema

    class FieldTitles(GenerateJsonSchema):
        def field_title_should_be_set(self, schema: CoreSchema) -> bool:
            return False

    return FieldTitles


def _is_async(func: Callable[..., Any]) -> bool:
    while isinstance(func, functools.partial):
        func = func.func
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(
        getattr(func, "__call__", None))  # noqa: B004  (an object with an async __call__)


def bind(tool_name: str, func: Callable[..., Any],
          namespace: dict[str, Any] | None = None) -> Binding:
    """The validating model of ``func``'s parameters and its JSON schema;
    fails naming the first parameter with no JSON form."""
    import pydantic

    signature = _signature(tool_name, func, namespace or {})
    descriptions = parameter_docs(inspect.getdoc(func) or "")
    definitions: dict[str, Any] = {}
    fields: list[tuple[str, str, bool]] = []
    for parameter in signature.parameters.values():
        field_name, definition = _field(tool_name, parameter, descriptions.get(parameter.name))
        definitions[field_name] = definition
        fields.append((field_name, parameter.name,
                       parameter.kind is inspect.Parameter.POSITIONAL_ONLY))
    model_name = "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", tool_name))
    try:
        model = pydantic.create_model(f"{model_name or 'Tool'}Arguments", **definitions)
        schema = model.model_json_schema(schema_generator=_schema_generator())
    except (pydantic.PydanticUserError, TypeError, ValueError) as exc:
        raise _parameter_error(tool_name, signature, exc) from exc
    schema.pop("title", None)  # the model's made-up name
    schema.setdefault("properties", {})
    return Binding(model, tuple(fields), schema, _is_async(func))


def _signature(tool_name: str, func: Callable[..., Any],
               namespace: dict[str, Any]) -> inspect.Signature:
    """The signature with string annotations evaluated (in the function's
    globals, then ``namespace``); an annotation that does not evaluate is named."""
    try:
        return inspect.signature(func, eval_str=True, locals=namespace)
    except (NameError, SyntaxError, TypeError, AttributeError) as exc:
        try:
            plain = inspect.signature(func)
        except (TypeError, ValueError):
            raise ToolDefinitionError(f"tool {tool_name!r}: {func!r} has no signature to read") \
                from exc
        globals_ = getattr(inspect.unwrap(func), "__globals__", {})
        for parameter in plain.parameters.values():
            if isinstance(parameter.annotation, str):
                try:
                    eval(parameter.annotation, globals_, namespace)  # what eval_str=True does
                except Exception:
                    raise ToolDefinitionError(
                        f"tool {tool_name!r}: the annotation of parameter {parameter.name!r} "
                        f"({parameter.annotation!r}) does not evaluate: {exc}") from exc
        raise ToolDefinitionError(f"tool {tool_name!r}: annotations do not evaluate: {exc}") \
            from exc
    except ValueError as exc:
        raise ToolDefinitionError(f"tool {tool_name!r}: {func!r} has no signature to read") \
            from exc


def _field(tool_name: str, parameter: inspect.Parameter, doc: str | None,
           ) -> tuple[str, tuple[Any, FieldInfo]]:
    """The model field for one parameter: (its name in the model, (type, Field))."""
    name = parameter.name
    if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
        raise ToolDefinitionError(
            f"tool {tool_name!r}: parameter '*{name}' cannot be called with JSON arguments "
            f"(a call is one object of named values); use a list parameter")
    if parameter.kind is inspect.Parameter.VAR_KEYWORD:
        raise ToolDefinitionError(
            f"tool {tool_name!r}: parameter '**{name}' has no schema to show the model; "
            f"name the parameters, or take one dict parameter")
    import pydantic
    from pydantic.fields import FieldInfo

    annotation = parameter.annotation
    if annotation is inspect.Parameter.empty:
        raise ToolDefinitionError(
            f"tool {tool_name!r}: parameter {name!r} has no type annotation "
            f"(annotate it; typing.Any accepts any JSON value)")
    default = parameter.default
    if isinstance(default, FieldInfo):  # x: int = Field(3, description=...)
        annotation = Annotated[annotation, default]
        default = inspect.Parameter.empty
    settings: dict[str, Any] = {}  # only what is set: None would override Annotated's own
    description = None if _has_field_description(annotation) else (
        _annotated_description(annotation) or doc)
    if description:
        settings["description"] = description
    if not _safe_field_name(name):
        settings["alias"] = name
    field_info: FieldInfo = pydantic.Field(
        ... if default is inspect.Parameter.empty else default, **settings)
    return (name if _safe_field_name(name) else f"field_{name.lstrip('_')}_"), (
        annotation, field_info)


def _safe_field_name(name: str) -> bool:
    """Whether a parameter name can be a pydantic field name as it is (not
    private, not shadowing a BaseModel attribute); others go through an alias."""
    import pydantic

    return (name.isidentifier() and not name.startswith(("_", "model_"))
            and not hasattr(pydantic.BaseModel, name))


def _metadata(annotation: Any) -> tuple[Any, ...]:
    return annotation.__metadata__ if get_origin(annotation) is Annotated else ()


def _has_field_description(annotation: Any) -> bool:
    from pydantic.fields import FieldInfo

    return any(isinstance(item, FieldInfo) and item.description for item in _metadata(annotation))


def _annotated_description(annotation: Any) -> str | None:
    """``Annotated[T, "text"]`` (or a ``typing_extensions.Doc``): the text."""
    for item in _metadata(annotation):
        if isinstance(item, str):
            return item
        documentation = getattr(item, "documentation", None)
        if isinstance(documentation, str):
            return documentation
    return None


def _parameter_error(tool_name: str, signature: inspect.Signature,
                     exc: Exception) -> ToolDefinitionError:
    """The parameter whose type has no JSON schema, found by trying each alone."""
    import pydantic

    for parameter in signature.parameters.values():
        try:
            pydantic.TypeAdapter(parameter.annotation).json_schema()
        except (pydantic.PydanticUserError, TypeError, ValueError) as error:
            reason = str(error).split("\n", 1)[0]
            return ToolDefinitionError(
                f"tool {tool_name!r}: parameter {parameter.name!r} has type "
                f"{_type_name(parameter.annotation)}, which JSON arguments cannot express "
                f"({reason})")
    return ToolDefinitionError(f"tool {tool_name!r}: no JSON schema for the parameters: {exc}")


def _type_name(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__qualname__
    return repr(annotation).replace("typing.", "")


# ---------------------------------------------------------------- refs

_LOCAL_DEFS = ("#/$defs/", "#/definitions/")


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` with each local ``$ref`` replaced by the definition
    it points to (sibling keywords such as a description kept), for servers
    that drop ``$ref`` (Ollama reads tool properties into a struct without it).
    A definition that refers to itself cannot be inlined: those refs stay, with
    their ``$defs``; ``$defs`` go when nothing refers to them any more."""
    defs = {**(schema.get("definitions") or {}), **(schema.get("$defs") or {})}
    body = {key: value for key, value in schema.items() if key not in ("$defs", "definitions")}
    out: dict[str, Any] = _inline(copy.deepcopy(body), defs, frozenset())
    if _refers(out):
        for key in ("$defs", "definitions"):
            if key in schema:
                out[key] = copy.deepcopy(schema[key])
    return out


def _inline(node: Any, defs: dict[str, Any], inside: frozenset[str]) -> Any:
    if isinstance(node, list):
        return [_inline(item, defs, inside) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_LOCAL_DEFS):
        name = ref.rsplit("/", 1)[-1]
        target = defs.get(name)
        if isinstance(target, dict) and name not in inside:
            inlined = _inline(copy.deepcopy(target), defs, inside | {name})
            siblings = {key: _inline(value, defs, inside) for key, value in node.items()
                        if key != "$ref"}
            return {**inlined, **siblings}
        return node
    return {key: _inline(value, defs, inside) for key, value in node.items()}


def _refers(node: Any) -> bool:
    if isinstance(node, list):
        return any(_refers(item) for item in node)
    if isinstance(node, dict):
        return "$ref" in node or any(_refers(value) for value in node.values())
    return False
