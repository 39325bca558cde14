import type { Page } from 'playwright-core';

/**
 * Answers the app's own confirmation (components/ui/confirm-dialog.tsx) with its confirm button and
 * returns what it said (its text, whitespace folded), so a test checks what the administrator was told.
 */
export async function confirmInDialog(page: Page): Promise<string> {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  const text = (await dialog.innerText()).replace(/\s+/g, ' ').trim();
  await dialog.locator('button[type="submit"]').click();
  await dialog.waitFor({ state: 'hidden' });
  return text;
}
