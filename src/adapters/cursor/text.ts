/** The shared adapter helpers, as the Cursor parsers use them. */
export {clip, firstLine, isObject, type Json, later, num, oneLine, str, toMs} from '../text.js'
