"""What people watch: streamed text with its provenance, and stats tables.

In a terminal (rich), accepted drafts, corrections and bonus tokens are told
apart by colour; when stdout is not a terminal, text is printed plain.
"""

from __future__ import annotations

import sys

STYLES = {"draft": "green", "correction": "bold red", "bonus": "bold cyan", "target": "default"}
LEGEND = "[green]accepted draft[/green]  [bold red]correction[/bold red]  [bold cyan]bonus[/bold cyan]"


class TokenStream:
    """Incremental detokenisation: decode the growing sequence and print the new suffix.

    Decoding the whole sequence each time keeps word boundaries right for
    sentencepiece and byte-level BPE alike (a lone piece decodes differently
    from the same piece in context).
    """

    def __init__(self, tokenizer, prompt=(), legend: str | None = None, colour: bool | None = None, file=None):
        self.tokenizer = tokenizer
        self.file = file or sys.stdout
        self.colour = self.file.isatty() if colour is None else colour
        self.ids: list[int] = list(prompt)
        self.text = tokenizer.decode(self.ids) if self.ids else ""
        if self.colour:
            from rich.console import Console

            self.console = Console(file=self.file, highlight=False, soft_wrap=True)
            if legend:
                self.console.print(legend)
            self.console.print(self.text, style="dim", end="")
        else:
            self.file.write(self.text)

    def write(self, ids, kinds=None) -> None:
        kinds = kinds or ["target"] * len(ids)
        for tid, kind in zip(ids, kinds):
            self.ids.append(tid)
            text = self.tokenizer.decode(self.ids)
            if text.endswith("\ufffd"):  # an incomplete UTF-8 sequence: wait for the rest
                continue
            piece, self.text = text[len(self.text) :], text
            if self.colour:
                from rich.text import Text

                self.console.print(Text(piece, style=STYLES.get(kind, "default")), end="")
            else:
                self.file.write(piece)
                self.file.flush()

    def finish(self) -> None:
        if self.colour:
            self.console.print()
        else:
            self.file.write("\n")
            self.file.flush()


def print_summary(rows: list[tuple[str, str]], title: str, file=None) -> None:
    file = file or sys.stdout
    if file.isatty():
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title, show_header=False, title_justify="left")
        for name, value in rows:
            table.add_row(name, value)
        Console(file=file).print(table)
    else:
        print(f"# {title}", file=file)
        for name, value in rows:
            print(f"{name}: {value}", file=file)
