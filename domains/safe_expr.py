"""Arithmetic a variant spec may write (`[[derived]]` values): + - * /, numbers and value
names, parsed and checked before anything is evaluated; nothing else of Python is reachable."""
from __future__ import annotations

import ast
from typing import Callable, Union

_BINOPS: dict[type, Callable[[float, float], float]] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
}


def checked_expr(expr: str) -> ast.Expression:
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError as e:
        raise ValueError(f"invalid expression: {e.msg}") from None
    for node in ast.walk(tree):
        ok = isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Name, ast.Load,
                               ast.Add, ast.Sub, ast.Mult, ast.Div, ast.USub, ast.UAdd))
        if isinstance(node, ast.Constant):
            ok = isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        if not ok:
            raise ValueError(f"{type(node).__name__} is not allowed (only + - * /, numbers and value names)")
    return tree


def expr_names(expr: str) -> list[str]:
    return sorted({n.id for n in ast.walk(checked_expr(expr)) if isinstance(n, ast.Name)})


def safe_eval(expr: str, names: dict[str, float]) -> Union[int, float]:
    """Evaluate `expr` (+ - * /, numbers, names) over `names`; ValueError on anything else."""
    def ev(n: ast.AST) -> float:
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in names:
                raise ValueError(f"unknown value {n.id!r}")
            return names[n.id]
        if isinstance(n, ast.UnaryOp):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            if isinstance(n.op, ast.Div) and b == 0:
                raise ValueError("division by zero")
            return _BINOPS[type(n.op)](a, b)
        raise ValueError(f"{type(n).__name__} is not allowed")
    return tidy_number(ev(checked_expr(expr)))


def tidy_number(v: Union[int, float]) -> Union[int, float]:
    if isinstance(v, float):
        v = round(v, 6)
        if v.is_integer():
            return int(v)
    return v
