"""HTML tables in a notebook, in one style: what a fit's display
(:mod:`pygbm.fit_report`), QWYC's summary and a calibrated model draw with.

:func:`table_html` is a caption and (label, value) rows as one styled block;
:func:`row_html`, :func:`table_block` and :func:`styled` are its parts, for a
display of several tables.
"""
from __future__ import annotations

from html import escape

#: the tables' style; selectors specific enough to win over JupyterLab's
#: (``:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td``: right-aligned cells
#: in equal-width columns)
_T = "div.pygbm-fit table.pygbm-table"
_STYLE = ("<style>"
          f"{_T} {{table-layout: auto; margin: 0 0 0.8em 0; border-collapse: collapse;}}"
          f"{_T} caption {{text-align: left; font-weight: bold; white-space: nowrap;}}"
          f"{_T} th, {_T} td {{text-align: left; padding: 1px 8px; vertical-align: top;}}"
          f"{_T} th {{white-space: nowrap;}}"
          f"{_T} td.num {{text-align: right;}}"
          f"{_T} td.call {{max-width: 50em; font-family: monospace;}}"
          "</style>")


def table_html(caption: str, rows: list[tuple[str, str]], note: str | None = None) -> str:
    """A caption and (label, value) rows as the fit's display draws them: the
    notebook display of the seed features' reports (QWYC's summary, a calibrated model)."""
    body = "".join(row_html(key, value) for key, value in rows)
    if note:
        body += row_html("Note", note)
    return styled(table_block(escape(caption), body))


def styled(*tables: str) -> str:
    """Tables (HTML) in the display's styled block."""
    return f"{_STYLE}<div class=\"pygbm-fit\">{''.join(tables)}</div>"


def table_block(caption: str, body: str) -> str:
    """One table: its caption (HTML) and its rows (HTML)."""
    return f"<table class=\"pygbm-table\"><caption>{caption}</caption>{body}</table>"


def row_html(key: str, value: str, css: str | None = None) -> str:
    """One (label, value) row, both escaped; ``css``: the value cell's class."""
    cls = f' class="{css}"' if css else ""
    return f"<tr><th>{escape(key)}</th><td{cls}>{escape(value)}</td></tr>"
