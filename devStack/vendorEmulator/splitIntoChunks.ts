/** Word by word, each word with the whitespace after it; joined, the pieces give `text` back. */
export function splitIntoWords(text: string): string[] {
  return text.split(/(?<=\s)(?=\S)/).filter((piece) => piece !== "");
}

/** Pieces of at most `size` characters (code points, so no character is split). */
export function splitIntoSlices(text: string, size: number): string[] {
  const characters = Array.from(text);
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += size) {
    pieces.push(characters.slice(start, start + size).join(""));
  }
  return pieces;
}
