/**
 * A QR code drawn in a terminal: two modules per character cell (the top one and the bottom one,
 * with the half blocks ▀ ▄ █ and a space), a quiet zone of four light modules on every side, and
 * explicit colours, black on white, so a dark terminal does not draw it inverted (phone cameras
 * look for dark modules on a light ground). Used by `cast web pair`.
 */

export const QUIET_ZONE = 4

/** Black foreground on a white background (256-colour palette: 16 is black, 231 white), and back to the terminal's own. */
const BLACK_ON_WHITE = '\u001B[38;5;16;48;5;231m'
const RESET = '\u001B[0m'

/** Character for a cell: top module dark?, bottom module dark? (a space is light on light). */
function cell(top: boolean, bottom: boolean): string {
  if (top && bottom) return '█'
  if (top) return '▀'
  if (bottom) return '▄'
  return ' '
}

/**
 * The lines to print, top to bottom. `color: false` leaves the colours out (the terminal's own
 * foreground is then the dark one: only right on a light terminal).
 */
export function qrLines(modules: readonly (readonly boolean[])[], options: {color?: boolean} = {}): string[] {
  const size = modules.length
  const full = size + 2 * QUIET_ZONE
  const dark = (row: number, col: number): boolean => {
    const r = row - QUIET_ZONE
    const c = col - QUIET_ZONE
    return r >= 0 && c >= 0 && r < size && c < size && modules[r]![c] === true
  }
  const lines: string[] = []
  // An odd number of module rows leaves the last cell's bottom half outside: light, part of the quiet zone.
  for (let row = 0; row < full; row += 2) {
    let line = ''
    for (let col = 0; col < full; col++) line += cell(dark(row, col), dark(row + 1, col))
    lines.push(options.color === false ? line : BLACK_ON_WHITE + line + RESET)
  }
  return lines
}
