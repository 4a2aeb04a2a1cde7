/** The hooks installer, by its old name (src/lib/hooks/ holds it, one job a module). */
export * from './hooks/index.js'
