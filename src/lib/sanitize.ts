/** The one sanitizer for what a person reads lives in src/core/model/sanitize.ts (pure; core uses it too). */
export * from '../core/model/sanitize.js'
