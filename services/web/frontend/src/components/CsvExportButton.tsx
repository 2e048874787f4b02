/** Downloads rows as a CSV file, made in the browser from the rows on screen; `csv` null: nothing to download yet. */
export function CsvExportButton({ csv, fileName }: { csv: string | null; fileName: string }) {
  const download = () => {
    if (csv === null) return;
    const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = fileName;
    document.body.append(link);
    link.click();
    link.remove();
    // The download has its own copy once started; the address is freed on the next turn.
    setTimeout(() => URL.revokeObjectURL(url), 0);
  };
  return (
    <button type="button" className="button button-secondary" onClick={download} disabled={csv === null} data-testid="csv-export">
      Download CSV
    </button>
  );
}
