/** Copying canonical mentions out, so a reference found here can be pasted into dsh. */

/** Put `text` on the clipboard; false when the browser refuses (no permission, no secure context). */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
