"""The ``approxlab`` command line: a lazy command group that starts at once.

Every verb is a line of :data:`COMMANDS` (verb -> module, one-line help). ``approxlab --help`` lists the
table without importing any command module; a command module (and with it torch, sympy, scipy or
matplotlib) is imported only when its verb runs. A command module adds its verb to :data:`app` with
``@app.command("verb")`` (or ``app.add_typer(sub_app, name="verb")`` for a group of subcommands).

Adding a verb is one line::

    "card": ("approxlab.commands.card", "Print the card of an activation."),

Bad input never shows a traceback: a ``ValueError``/``TypeError`` from the library or a usage error is
printed as one line on stderr (``approxlab: error: ...``) and the exit code is 2. Path and integer
parameters are checked as typed (:func:`strict_values`): an empty path and an integer that is not plain
digits (``1_000``) are refused, naming the parameter; an unknown verb's error lists the verbs.

Examples
--------
>>> from approxlab.cli import COMMANDS
>>> COMMANDS["list"][0]
'approxlab.commands.zoo'
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, Mapping
from pathlib import PurePath
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperGroup, TyperOption

try:  # typer >= 0.20 vendors click; older typer uses the click package
    from typer._click import exceptions as click_exc
except ImportError:  # pragma: no cover - depends on the installed typer
    from click import exceptions as click_exc  # type: ignore[no-redef]

from approxlab import __version__

#: The verbs: name -> (module that registers it on :data:`app`, one-line help shown by ``--help``).
#: Adding a verb is one line here; keep the help under ~70 characters.
COMMANDS: dict[str, tuple[str, str]] = {
    "list": ("approxlab.commands.zoo", "Every activation with its paper, equation and options."),
    "papers": ("approxlab.commands.papers", "The five papers, with how many claims each has."),
    "verify": ("approxlab.commands.verify", "Run the papers' claims as checks; write the report."),
    "gains": ("approxlab.commands.gains", "Forward and backward init gains of an activation."),
    "scaling": ("approxlab.commands.scaling", "Error against parameter count; fitted exponents."),
    "probe": ("approxlab.commands.probe", "Probe the separations of moa Theorems 4.1 and 4.2."),
    "sweep": ("approxlab.commands.sweep", "Inspect, export and clean a sweep's result store."),
    "figures": ("approxlab.commands.zoo", "Regenerate the theory figures (PNG plus data)."),
    "fit": ("approxlab.commands.fit", "Fit a basis activation to a target activation."),
    "bench": ("approxlab.commands.bench", "Time the activations against GELU (forward + backward)."),
    "card": ("approxlab.commands.card", "An activation's report card: gains, C-map, edge of chaos."),
    "swap": ("approxlab.commands.swap", "Swap a model's activations for fitted ones; report the change."),
    "audit": ("approxlab.commands.audit", "Audit third-party implementations against the papers."),
}

#: The command modules, in table order (kept for code that iterates over them).
COMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(module for module, _ in COMMANDS.values()))

EXIT_CODES = """\b
Exit codes:
  0  ok (a paper's claim that fails as printed is a finding, not an error)
  1  a check or a run crashed (a bug in approxlab; the traceback is shown)
  2  bad input or a missing extra (one line on stderr: approxlab: error: ...)

Run `approxlab COMMAND --help` for a command's options."""

#: The typer application the command modules register on (``from approxlab.cli import app``).
app = typer.Typer(
    name="approxlab",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """approxlab (the group object itself is :func:`group`)."""


class _LazyCommands(Mapping[str, Any]):
    """The verbs of :data:`COMMANDS` as a mapping; a verb's module is imported on first lookup."""

    def __init__(self) -> None:
        self._loaded: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in COMMANDS:
            raise KeyError(name)
        if name not in self._loaded:
            importlib.import_module(COMMANDS[name][0])
            built = typer.main.get_command(app)
            cmd = built.commands.get(name) if isinstance(built, TyperGroup) else None
            if cmd is None:
                raise RuntimeError(f"{COMMANDS[name][0]} does not register the command {name!r} on approxlab.cli.app")
            strict_values(cmd)
            self._loaded[name] = cmd
        return self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)


def _label(param: Any) -> str:
    """How an error names a parameter: its long option (``--out``) or its argument's name (``MODEL_PATH``)."""
    if isinstance(param, TyperArgument):
        return str(param.metavar or param.name or "argument").upper()
    return max(param.opts, key=len) if param.opts else str(param.name)


def _check_raw(param: Any, kind: str, raw: str, ctx: Any) -> None:
    """Refuse a command-line text that typer would turn into another value without a word."""
    if kind == "path" and raw == "":  # typer reads '' as Path('.'), the current folder
        raise click_exc.UsageError(f"{_label(param)} must be a path, got an empty string", ctx=ctx)
    if kind == "int":  # typer would read '1_000' as 1000 and ' 8' as 8
        from approxlab._core.validate import parse_int

        try:
            parse_int(_label(param), raw)
        except ValueError as exc:
            raise click_exc.UsageError(str(exc), ctx=ctx) from None


def strict_values(command: Any) -> None:
    """Make the path and integer parameters of ``command`` (and of its subcommands) refuse, at parse time and
    naming the parameter, the empty string as a path and an integer that is not plain digits.

    typer converts first and the command sees only the result (``Path('')`` is ``Path('.')``), so no later
    check can tell ``--out ''`` from ``--out .``: the check wraps each parameter's conversion.
    """
    for sub in getattr(command, "commands", {}).values():
        strict_values(sub)
    for param in getattr(command, "params", ()):
        annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
        if isinstance(annotation, type) and issubclass(annotation, PurePath):
            kind = "path"
        elif annotation is int:
            kind = "int"
        else:
            continue
        convert = param.process_value

        def process_value(ctx: Any, value: Any, _param: Any = param, _kind: str = kind, _convert: Any = convert) -> Any:
            for raw in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(raw, str):
                    _check_raw(_param, _kind, raw, ctx)
            return _convert(ctx, value)

        param.process_value = process_value


class LazyGroup(TyperGroup):
    """A typer group that lists :data:`COMMANDS` from the table and imports a verb only to run it."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _LazyCommands()  # type: ignore[assignment]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return self.commands.get(cmd_name)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = [(name, short) for name, (_, short) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _print_version(value: bool) -> None:
    if value:
        print(f"approxlab {__version__}")
        raise typer.Exit(0)


_root_app = typer.Typer(
    name="approxlab",
    cls=LazyGroup,
    help="Check the mathematics behind polynomial, orthogonal, rational and mixed activations.",
    epilog=EXIT_CODES,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain click help: no rich import for `approxlab --help`
    context_settings={"max_content_width": 100},
)


@_root_app.callback()
def _root_options(
    version: Annotated[
        bool, typer.Option("--version", is_eager=True, callback=_print_version, help="Print the version and exit.")
    ] = False,
) -> None:
    """Check the mathematics behind polynomial, orthogonal, rational and mixed activations."""


def group() -> LazyGroup:
    """The root ``approxlab`` command: ``--version``, ``--help`` and the verbs of :data:`COMMANDS`."""
    root = typer.main.get_command(_root_app)
    assert isinstance(root, LazyGroup)
    return root


_PLAIN_TYPES = {"<str>": "TEXT", "<int>": "INTEGER", "<float>": "FLOAT", "<path>": "PATH"}


def _display_type(self: Any, ctx: Any) -> str | None:
    """Type column of a command's help: nothing for flags, click's TEXT/INTEGER/... for values."""
    if getattr(self, "is_flag", False) or getattr(self, "is_bool_flag", False):
        return None
    shown = _typer_display_type[type(self)](self, ctx)
    if shown is None:
        return None
    for noisy, plain in _PLAIN_TYPES.items():
        shown = shown.replace(noisy, plain)
    return shown


def _patch_help_types(classes: tuple[type, ...]) -> dict[type, Any]:
    """Route typer's help type column through :func:`_display_type`; returns the original hooks.

    The hook (``display_type_rich``) is typer-internal and recent: classes without it (older typer)
    are left alone and keep their own column.
    """
    found = {cls: cls.display_type_rich for cls in classes  # type: ignore[attr-defined]
             if callable(getattr(cls, "display_type_rich", None))}
    for cls in found:
        cls.display_type_rich = _display_type  # type: ignore[attr-defined]
    return found


_typer_display_type = _patch_help_types((TyperOption, TyperArgument))


def fail(message: str) -> None:
    """Print ``approxlab: error: <message>`` as one line on stderr and exit with code 2."""
    one_line = " ".join(str(message).split())
    print(f"approxlab: error: {one_line}", file=sys.stderr)
    raise SystemExit(2)


def _headless_plots() -> None:
    """The command line only writes files: draw with Agg. The library never chooses a backend, so a
    notebook's or a user's own backend is left alone; this process is the CLI's own."""
    import os

    if "matplotlib" in sys.modules:
        sys.modules["matplotlib"].use("Agg")
    else:  # read when matplotlib is first imported; importing it here would slow every command
        os.environ.setdefault("MPLBACKEND", "Agg")


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run the lazy group, turning bad input into one line and exit 2."""
    command = group()
    _headless_plots()
    try:
        rv = command.main(args=argv, prog_name="approxlab", standalone_mode=False)
    except click_exc.NoArgsIsHelpError as exc:  # `approxlab` alone: show help, like --help
        print(exc.ctx.get_help() if exc.ctx else "")
        raise SystemExit(0) from None
    except click_exc.UsageError as exc:
        fail(_usage_message(exc))
    except (typer.Abort, KeyboardInterrupt):
        _interrupted()
    except click_exc.ClickException as exc:
        fail(exc.format_message())
    except (ValueError, TypeError) as exc:
        fail(str(exc))
    except ImportError as exc:  # a missing extra: one line naming it (approxlab._core.extras)
        from approxlab._core.extras import MissingExtraError, extra_for, missing_extra_message

        if isinstance(exc, MissingExtraError):
            fail(str(exc))
        extra = extra_for(exc.name) if isinstance(exc, ModuleNotFoundError) and exc.name else None
        if extra is None:
            raise
        fail(missing_extra_message(exc.name.split(".")[0], extra))
    except typer.Exit as exc:
        raise SystemExit(exc.exit_code) from None
    except OverflowError as exc:  # a user's number beyond float64 that reached arithmetic
        fail(f"a number is beyond the float64 range ({exc}); give smaller values")
    except OSError as exc:  # a write that fails late (a full disk, /proc, /sys), a name the file system refuses
        where = f"{exc.filename!r}: " if exc.filename is not None else ""
        fail(f"cannot write or read {where}{exc.strerror or exc}")
    if rv == 130:  # typer turns Ctrl-C (KeyboardInterrupt) into a silent return code 130
        _interrupted()
    raise SystemExit(rv if isinstance(rv, int) else 0)


def _usage_message(exc: click_exc.UsageError) -> str:
    """A usage error's message; an unknown command also gets the list of the known ones."""
    message = str(exc.format_message())
    ctx = exc.ctx
    if message.startswith("No such command") and ctx is not None and hasattr(ctx.command, "list_commands"):
        known = ", ".join(ctx.command.list_commands(ctx))
        lead = f"{message} The commands are" if message.endswith("?") else f"{message.rstrip('.')}; the commands are"
        message = f"{lead}: {known}"
    return message


def _interrupted() -> None:
    """Ctrl-C: one line saying so and what was kept, exit 130."""
    print("approxlab: interrupted; files already written stay, and the finished runs of a --store are kept "
          "(a rerun with the same --store continues from them)", file=sys.stderr)
    raise SystemExit(130)
