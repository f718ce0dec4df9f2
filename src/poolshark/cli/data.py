"""``poolshark data``: fetch public hand-history datasets and ingest them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

from poolshark.cli.common import JsonFlag, console, errors, print_json, user_errors
from poolshark.cli.ingest import print_summary
from poolshark.histories.fetch import DEFAULT_BASE_URL, FetchError, collection, fetch_handhq
from poolshark.histories.ingest import ingest
from poolshark.histories.rows import DEFAULT_SALT

app = typer.Typer(help="Public hand-history datasets: download and ingest.", no_args_is_help=True)


@app.command("fetch")
def fetch(
    dataset: Annotated[str, typer.Argument(help="The dataset: handhq (the PHH dataset's HandHQ).")],
    site: Annotated[str, typer.Option(help="Site code: ps, abs.")] = "ps",
    stakes: Annotated[int, typer.Option(help="Big blind in cents: 25 is $0.10/$0.25.")] = 25,
    files: Annotated[
        int, typer.Option("--files", "-n", help="How many files (~1,000 hands each).")
    ] = 1,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Folder for the files and the rows.")
    ] = Path("data/handhq"),
    base_url: Annotated[str, typer.Option(help="Where the repository's files are served.")] = (
        DEFAULT_BASE_URL
    ),
    retries: Annotated[int, typer.Option(help="Retries per file after a failed attempt.")] = 5,
    workers: Annotated[
        int, typer.Option("--workers", "-w", help="Ingestion workers (0: all cores).")
    ] = 0,
    salt: Annotated[
        str, typer.Option(envvar="POOLSHARK_SALT", help="Salt of the anonymized player ids.")
    ] = DEFAULT_SALT,
    ingest_files: Annotated[
        bool, typer.Option("--ingest/--no-ingest", help="Ingest after fetching.")
    ] = True,
    json_output: JsonFlag = False,
) -> None:
    """Download HandHQ files of the PHH dataset, then ingest them.

    Downloads resume and retry. Files go to OUT/files/<repository path>;
    rows, quarantine and the summary to OUT.
    """
    with user_errors():
        if dataset.lower() != "handhq":
            raise FetchError(f"unknown dataset {dataset!r}: only handhq is known")
        chosen = collection(site, stakes)
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            console=errors,
            disable=json_output,
        ) as bar:
            task = bar.add_task(f"{chosen.site} {chosen.stakes}: 0/{files} files", total=None)
            done = [0]

            def file_done(path: str) -> None:
                done[0] += 1
                bar.update(
                    task, description=f"{chosen.site} {chosen.stakes}: {done[0]}/{files} files"
                )

            fetched = fetch_handhq(
                site,
                stakes,
                files,
                out / "files",
                base_url=base_url,
                retries=retries,
                on_bytes=lambda n: bar.update(task, advance=n),
                on_file=file_done,
            )
        summary = None
        if ingest_files and fetched.files:
            summary = ingest(
                fetched.files, out, workers=workers or None, salt=salt, progress=not json_output
            )
    if json_output:
        print_json({"fetch": fetched.to_dict(), "ingest": summary.to_dict() if summary else None})
        return
    console.print(
        f"fetched {len(fetched.files)} file(s) of {chosen.site} {chosen.stakes}"
        f" ({fetched.downloaded_bytes:,} bytes downloaded, {fetched.skipped} already there,"
        f" {len(fetched.missing)} missing, {fetched.retries} retries)"
    )
    if summary is not None:
        print_summary(summary)
