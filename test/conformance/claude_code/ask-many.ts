/**
 * The AskUserQuestion of two questions the multi-question cases ask Claude Code for: a single
 * choice (Colour), then a multiple choice (Sizes) whose last option is labelled `last`.
 */
export function askMany(last = 'Huge') {
  return {
    questions: [
      {
        header: 'Colour',
        multiSelect: false,
        options: [
          {description: 'warm', label: 'Red'},
          {description: 'cool', label: 'Blue'},
        ],
        question: 'Which colour should the button be?',
      },
      {
        header: 'Sizes',
        multiSelect: true,
        options: [
          {description: 'for phones', label: 'Small'},
          {description: 'for desks', label: 'Large'},
          {description: 'for walls', label: last},
        ],
        question: 'Which sizes should it come in?',
      },
    ],
  }
}
