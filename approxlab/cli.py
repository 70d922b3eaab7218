"""The ``approxlab`` command line.

``approxlab list | figures | gains | verify | scaling | probe | sweep | bench``. Each command lives in a
module of :mod:`approxlab.commands` that adds itself to :data:`app`. Bad input never shows a traceback:
a ``ValueError``/``TypeError`` from the library or a usage error is printed as one line on stderr and
the exit code is 2.
"""

from __future__ import annotations

import importlib
import sys

import typer

try:  # typer >= 0.20 vendors click; older typer uses the click package
    from typer._click import exceptions as click_exc
except ImportError:  # pragma: no cover - depends on the installed typer
    from click import exceptions as click_exc

app = typer.Typer(
    name="approxlab",
    help="Check the mathematics behind polynomial, orthogonal, rational and mixed activations.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

#: Modules that add commands to :data:`app` when imported.
COMMAND_MODULES: tuple[str, ...] = (
    "approxlab.commands.zoo",
    "approxlab.commands.gains",
    "approxlab.commands.verify",
    "approxlab.commands.scaling",
    "approxlab.commands.probe",
    "approxlab.commands.sweep",
    "approxlab.commands.card",
)

for _mod in COMMAND_MODULES:
    importlib.import_module(_mod)


def fail(message: str) -> None:
    """Print ``approxlab: error: <message>`` as one line on stderr and exit with code 2."""
    one_line = " ".join(str(message).split())
    print(f"approxlab: error: {one_line}", file=sys.stderr)
    raise SystemExit(2)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: run :data:`app`, turning bad input into one line and exit 2."""
    command = typer.main.get_command(app)
    try:
        rv = command.main(args=argv, prog_name="approxlab", standalone_mode=False)
    except click_exc.NoArgsIsHelpError as exc:  # `approxlab` alone: show help, like --help
        print(exc.ctx.get_help() if exc.ctx else "")
        raise SystemExit(0) from None
    except click_exc.UsageError as exc:
        fail(exc.format_message())
    except (typer.Abort, KeyboardInterrupt):
        print("approxlab: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    except click_exc.ClickException as exc:
        fail(exc.format_message())
    except (ValueError, TypeError) as exc:
        fail(str(exc))
    except typer.Exit as exc:
        raise SystemExit(exc.exit_code) from None
    raise SystemExit(rv if isinstance(rv, int) else 0)
