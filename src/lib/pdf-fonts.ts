import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type PDFKitDocument from 'pdfkit';

// Noto Sans JP (SIL Open Font License) shipped by an npm package: no system font is needed. TrueType
// outlines, which pdfkit subsets: only the glyphs used are embedded.
const require = createRequire(import.meta.url);
let fonts: { regular: Buffer; bold: Buffer } | undefined;
let pdfDocument: typeof PDFKitDocument | undefined;

/**
 * pdfkit (and fontkit) on first use: most requests and jobs print nothing. Its CommonJS build, so that
 * the text validators asking `drawable` stay synchronous.
 */
export function pdfDocumentClass(): typeof PDFKitDocument {
  pdfDocument ??= require('pdfkit') as typeof PDFKitDocument;
  return pdfDocument;
}

/** The fonts every PDF of the shop prints with, read once. */
export function pdfFonts(): { regular: Buffer; bold: Buffer } {
  fonts ??= {
    regular: readFileSync(require.resolve('@expo-google-fonts/noto-sans-jp/400Regular/NotoSansJP_400Regular.ttf')),
    bold: readFileSync(require.resolve('@expo-google-fonts/noto-sans-jp/700Bold/NotoSansJP_700Bold.ttf')),
  };
  return fonts;
}

type GlyphTest = (codePoint: number) => boolean;
let drawableByBoth: GlyphTest | undefined;

/** fontkit (pdfkit's font parser, loaded with it) answers whether a font has a glyph. */
function glyphTest(data: Buffer): GlyphTest {
  const { create } = require('fontkit') as typeof import('fontkit');
  const font = create(data);
  if (!('hasGlyphForCodePoint' in font)) throw new Error('a font collection is not a receipt font');
  return (codePoint) => font.hasGlyphForCodePoint(codePoint);
}

/** Whether both PDF fonts can draw the character (else it prints as an empty box). Parsed on first use. */
export function drawable(codePoint: number): boolean {
  if (!drawableByBoth) {
    const { regular, bold } = pdfFonts();
    const [inRegular, inBold] = [glyphTest(regular), glyphTest(bold)];
    drawableByBoth = (cp) => inRegular(cp) && inBold(cp);
  }
  return drawableByBoth(codePoint);
}
