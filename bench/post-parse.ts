/** One upload to /v2/parse, its answer read whole; the status (for benches that count answers). */
export async function postParse(
  base: string,
  key: string,
  file: Uint8Array,
  filename: string,
  options: object,
): Promise<number> {
  const form = new FormData();
  form.append('options', JSON.stringify(options));
  form.append('file', new Blob([file as Uint8Array<ArrayBuffer>]), filename);
  const res = await fetch(`${base}/v2/parse`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(120_000),
  });
  await res.arrayBuffer();
  return res.status;
}
