"""hookd.1, the manual page, generated from the command line's own parser.

Every command and subcommand, each with its usage, description, arguments and options, as
`hookd COMMAND --help` has them; then the hook file format, the points and the exit codes from
the same tables `hookd help` prints. The wheel's build writes it (setup.py runs
``python -m hookd.cli.manpage OUT``) and installs it as share/man/man1/hookd.1, so it never
drifts from the parser. Nothing in it depends on the machine that built it: no date, no path
of the builder's home.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator


def _roff(text: str) -> str:
    """Text as roff reads it literally: backslashes escaped, a line starting with a control character guarded."""
    text = text.replace("\\", "\\e")
    # Any character outside ASCII as groff's Unicode escape: every formatter reads the page, with or without preconv.
    text = "".join(ch if ord(ch) < 128 else f"\\[u{ord(ch):04X}]" for ch in text)
    return "\n".join("\\&" + line if line.startswith((".", "'")) else line for line in text.split("\n"))


def _opt(text: str) -> str:
    """An option or command name: its hyphens as the minus sign man pages use for them, so they can be searched and pasted."""
    return _roff(text).replace("-", "\\-")


def _prose(text: str) -> str:
    """A paragraph of help text, filled by the formatter: its whitespace folded."""
    return _roff(" ".join(text.split()))


def _block(text: str) -> str:
    """Preformatted text (a table, a YAML sample), kept line for line."""
    return ".RS 4\n.nf\n" + _roff(text.rstrip("\n")) + "\n.fi\n.RE"


def _usage(parser: argparse.ArgumentParser) -> str:
    """The usage line without the word "usage:", on one line whatever the terminal's width."""
    formatter = argparse.HelpFormatter(parser.prog, width=1 << 20)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, prefix="")
    return " ".join(formatter.format_help().split())


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """An argument's help as --help shows it (``%(default)s`` and the like expanded)."""
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    return parser._get_formatter()._expand_help(action)


def _invocation(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"\\fI{_opt(action.metavar or action.dest)}\\fR"
    takes = action.nargs != 0
    metavar = action.metavar or (action.dest.upper() if not action.choices else "{" + ",".join(map(str, action.choices)) + "}")
    value = f" \\fI{_opt(str(metavar))}\\fR" if takes else ""
    return ", ".join(f"\\fB{_opt(opt)}\\fR{value}" for opt in action.option_strings)


def _subparsers(parser: argparse.ArgumentParser) -> Iterator[tuple[str, str, argparse.ArgumentParser]]:
    """(name, summary, parser) of each subcommand, in --help order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {c.dest: c.help or "" for c in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, helps.get(name, ""), sub


def _command(name: str, summary: str, parser: argparse.ArgumentParser) -> Iterator[str]:
    yield f'.SS "{_opt(name)}"'
    yield f".B {_opt(_usage(parser))}"
    yield ".PP"
    yield _prose(parser.description or summary)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) or action.help == argparse.SUPPRESS:
            continue
        yield ".TP"
        yield _invocation(action)
        yield _prose(_help(parser, action)) or "\\&"
    if parser.epilog:
        yield ".PP"
        yield _prose(parser.epilog)
    for sub_name, sub_summary, sub in _subparsers(parser):
        yield from _command(f"{name} {sub_name}", sub_summary, sub)


def render(parser: argparse.ArgumentParser | None = None) -> str:
    """hookd.1 for ``parser`` (default: hookd's own)."""
    from hookd import __version__
    from hookd.cli import build_parser
    from hookd.cli.helptopics import TOPICS, documents
    from hookd.config import userconfig

    parser = parser or build_parser()
    out = [
        '.\\" Generated from the parser of hookd.cli by hookd/cli/manpage.py: edit the parser, not this file.',
        f'.TH HOOKD 1 "" "hookd {_roff(__version__)}" "User Commands"',
        ".SH NAME",
        "hookd \\- the per-user hook daemon for AI coding agents",
        ".SH SYNOPSIS",
        ".B hookd",
        "\\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]",
        ".br",
        ".B hookd help",
        "[\\fITOPIC\\fR | \\fIPAGE\\fR | \\fICOMMAND\\fR]",
        ".SH DESCRIPTION",
        _prose(parser.description or ""),
        ".SH OPTIONS",
    ]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        out += [".TP", _invocation(action), _prose(_help(parser, action)) or "\\&"]
    out.append(".SH COMMANDS")
    for name, summary, sub in _subparsers(parser):
        out += list(_command(name, summary, sub))
    config = "$XDG_CONFIG_HOME (default ~/.config)"
    out += [".SH FILES", "Global hook files, always trusted:"]
    for f in userconfig.GLOBAL_FILES:
        out += [".TP", f"\\fI{_roff(f.format(config=config))}\\fR"]
        out.append(f"and the drop-ins beside it, {_roff(userconfig.DROPIN_DIR)}/*{_roff(userconfig.DROPIN_SUFFIX)}")
    out += [".PP", "A project's hook files, run once trusted (\\fBhookd trust\\fR \\fIDIR\\fR):"]
    for f in userconfig.PROJECT_FILES:
        out += [".TP", f"\\fI<project>/{_roff(f)}\\fR"]
        out.append(f"and the drop-ins beside it, {_roff(userconfig.DROPIN_DIR)}/*{_roff(userconfig.DROPIN_SUFFIX)}")
    for heading, topic in (("HOOK FILES", "hooks"), ("HOOK POINTS", "points"), ("MATCH", "match"), ("EXIT STATUS", "exit-codes")):
        out += [f".SH {heading}", _block(TOPICS[topic][1]())]
    if parser.epilog:
        out += [".SH NOTES", _prose(parser.epilog)]
    pages = sorted(documents())
    out += [".SH SEE ALSO", "\\fBhookd help\\fR \\fITOPIC\\fR: " + ", ".join(_opt(t) for t in TOPICS) + "."]
    if pages:
        out += [".PP", "\\fBhookd help\\fR \\fIPAGE\\fR, the pages of hookd's documentation: " + ", ".join(_opt(p) for p in pages) + "."]
    out += [".PP", "\\fBsystemctl\\fR(1), \\fBsystemd.unit\\fR(5): \\fBhookd install\\-systemd\\fR writes hookd's units."]
    text = "\n".join(out) + "\n"
    return re.sub(r"\n{2,}", "\n", text)  # roff reads a blank line as a break of its own


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = render()
    if args and args[0] != "-":
        with open(args[0], "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
