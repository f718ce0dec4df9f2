// Study: the run reports the server was given (--reports), each opened by its catalogue name.
"use strict";

async function setUpReports() {
  const note = document.getElementById("reports-note");
  try {
    const data = await api("GET", "/api/reports");
    note.textContent = `${data.reports.length} page${data.reports.length === 1 ? "" : "s"} under ${data.folder}/${data.truncated ? " (the first ones only)" : ""}`;
    const rows = data.reports.map((r) => `<tr><td><a href="/reports/${r.name.split("/").map(encodeURIComponent).join("/")}" target="_blank" rel="noopener">${escapeHtml(r.name)}</a></td>
      <td>${escapeHtml(r.run)}</td><td>${escapeHtml(r.title)}</td><td>${escapeHtml(r.modified)}</td><td>${(r.size_bytes / 1024).toFixed(0)} KiB</td></tr>`);
    document.getElementById("reports-table").innerHTML =
      `<table class="hands" id="reports-list"><tr><th style="text-align:left">page</th><th>run</th><th>title</th><th>date</th><th>size</th></tr>${rows.join("")}</table>`;
  } catch (error) {
    note.textContent = error.message;
  }
}

setUpReports();
