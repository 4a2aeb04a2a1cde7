/**
 * OpenCode sessions in every state the files can tell, as rows of a real opencode.db.
 */
import type {SessionSpec} from './helpers.js'
import {stepFinish, stepStart, t, text, tool} from './helpers.js'

export const ID = {
  aborted: 'ses_70a1b2c3dffeAbortedRename07',
  child: 'ses_70a1b2c3dffeChildExplore09c',
  compacted: 'ses_70a1b2c3dffeCompactedDocs11',
  compacting: 'ses_70a1b2c3dffeCompactingBig10',
  error: 'ses_70a1b2c3dffeErrorOverload06',
  length: 'ses_70a1b2c3dffeLengthLimited08',
  malformed: 'ses_70a1b2c3dffeMalformedRow013',
  parent: 'ses_70a1b2c3dffeParentAuditA09',
  placeholder: 'ses_70a1b2c3dffePlaceholder0012',
  question: 'ses_70a1b2c3dffeQuestionDbase05',
  settled: 'ses_70a1b2c3dffeSettledLogin01',
  streaming: 'ses_70a1b2c3dffeStreamingDark02',
  toolCalls: 'ses_70a1b2c3dffeToolCallsStep04',
  toolRunning: 'ses_70a1b2c3dffeToolRunMigra03',
} as const

const SHOP = '/home/dev/projects/shop'

export const SCENARIOS: SessionSpec[] = [
  {
    created: t(0),
    directory: SHOP,
    id: ID.settled,
    messages: [
      {created: t(0), id: 'msg_a01', parts: [text('prt_a01', 'The login page redirects forever after OAuth', t(0))], role: 'user'},
      {
        completed: t(8),
        created: t(2),
        finish: 'tool-calls',
        id: 'msg_a02',
        parts: [
          stepStart('prt_a02'),
          text('prt_a03', 'Let me look at the callback handler.', t(3)),
          tool('prt_a04', 'read', 'completed', t(4), {filePath: 'src/auth/callback.ts'}),
          stepFinish('prt_a05', 'tool-calls'),
        ],
        role: 'assistant',
      },
      {
        completed: t(15),
        created: t(9),
        finish: 'stop',
        id: 'msg_a03',
        parts: [
          stepStart('prt_a06'),
          text('prt_a07', 'Fixed: the callback now clears the `next` cookie before redirecting.', t(14)),
          stepFinish('prt_a08', 'stop'),
        ],
        role: 'assistant',
      },
    ],
    model: {id: 'claude-sonnet-4-5', providerID: 'anthropic'},
    title: 'Fix the login redirect loop',
  },
  {
    created: t(100),
    directory: SHOP,
    id: ID.streaming,
    messages: [
      {created: t(100), id: 'msg_b01', parts: [text('prt_b01', 'Add a dark mode toggle', t(100))], role: 'user'},
      {
        created: t(101),
        id: 'msg_b02',
        modelID: 'gpt-5.1',
        parts: [stepStart('prt_b02'), text('prt_b03', 'I will add a', t(102))],
        providerID: 'openai',
        role: 'assistant',
        updated: t(102),
      },
    ],
    title: 'Add dark mode',
  },
  {
    created: t(200),
    directory: SHOP,
    id: ID.toolRunning,
    messages: [
      {created: t(200), id: 'msg_c01', parts: [text('prt_c01', 'Run the migrations', t(200))], role: 'user'},
      {
        created: t(201),
        id: 'msg_c02',
        parts: [stepStart('prt_c02'), tool('prt_c03', 'bash', 'running', t(203), {command: 'npm run migrate'})],
        role: 'assistant',
      },
    ],
    title: 'Run the migrations',
  },
  {
    created: t(300),
    directory: SHOP,
    id: ID.toolCalls,
    messages: [
      {created: t(300), id: 'msg_d01', parts: [text('prt_d01', 'Lint the project', t(300))], role: 'user'},
      {
        completed: t(306),
        created: t(301),
        finish: 'tool-calls',
        id: 'msg_d02',
        parts: [tool('prt_d02', 'bash', 'completed', t(302), {command: 'npm run lint'})],
        role: 'assistant',
      },
    ],
    title: 'Lint the project',
  },
  {
    created: t(400),
    directory: SHOP,
    id: ID.question,
    messages: [
      {created: t(400), id: 'msg_e01', parts: [text('prt_e01', 'Set up the database layer', t(400))], role: 'user'},
      {
        created: t(401),
        id: 'msg_e02',
        parts: [
          stepStart('prt_e02'),
          tool('prt_e03', 'question', 'running', t(404), {
            questions: [
              {
                header: 'Database',
                options: [
                  {description: 'Server', label: 'Postgres'},
                  {description: 'File', label: 'SQLite'},
                ],
                question: 'Which database should the migration target?',
              },
            ],
          }),
        ],
        role: 'assistant',
      },
    ],
    title: 'Set up the database',
  },
  {
    created: t(500),
    directory: '/home/dev/projects/notes',
    id: ID.error,
    messages: [
      {created: t(500), id: 'msg_f01', parts: [text('prt_f01', 'Summarize the changelog', t(500))], role: 'user'},
      {
        completed: t(505),
        created: t(501),
        error: {data: {isRetryable: true, message: 'Overloaded', statusCode: 529}, name: 'APIError'},
        id: 'msg_f02',
        role: 'assistant',
      },
    ],
    title: 'Summarize the changelog',
  },
  {
    created: t(600),
    directory: '/home/dev/projects/notes',
    id: ID.aborted,
    messages: [
      {created: t(600), id: 'msg_g01', parts: [text('prt_g01', 'Rename the package', t(600))], role: 'user'},
      {
        completed: t(603),
        created: t(601),
        error: {data: {message: 'The operation was aborted.'}, name: 'MessageAbortedError'},
        id: 'msg_g02',
        parts: [text('prt_g02', 'Renaming', t(602))],
        role: 'assistant',
      },
    ],
    title: 'Rename the package',
  },
  {
    created: t(650),
    directory: '/home/dev/projects/notes',
    id: ID.length,
    messages: [
      {created: t(650), id: 'msg_h01', parts: [text('prt_h01', 'Write the whole spec', t(650))], role: 'user'},
      {completed: t(680), created: t(651), error: {data: {}, name: 'MessageOutputLengthError'}, id: 'msg_h02', role: 'assistant'},
    ],
    title: 'Write the spec',
  },
  {
    created: t(700),
    directory: SHOP,
    id: ID.parent,
    messages: [
      {created: t(700), id: 'msg_i01', parts: [text('prt_i01', 'Audit the auth module', t(700))], role: 'user'},
      {
        created: t(701),
        id: 'msg_i02',
        parts: [
          stepStart('prt_i02'),
          tool('prt_i03', 'task', 'running', t(702), {description: 'Explore the auth module', prompt: '…', subagent_type: 'explore'}),
        ],
        role: 'assistant',
      },
    ],
    title: 'Audit the auth module',
  },
  {
    created: t(702),
    directory: SHOP,
    id: ID.child,
    messages: [
      {created: t(702), id: 'msg_j01', parts: [text('prt_j01', 'Explore src/auth and list every entry point', t(702))], role: 'user'},
      {created: t(703), id: 'msg_j02', modelID: 'claude-haiku-4-5', parts: [stepStart('prt_j02')], role: 'assistant'},
    ],
    parent: ID.parent,
    title: 'Explore the auth module (@explore subagent)',
  },
  {
    compacting: t(810),
    created: t(800),
    directory: '/home/dev/projects/big',
    id: ID.compacting,
    messages: [
      {created: t(800), id: 'msg_k01', parts: [text('prt_k01', 'Read the whole repo', t(800))], role: 'user'},
      {
        completed: t(809),
        created: t(801),
        finish: 'stop',
        id: 'msg_k02',
        parts: [text('prt_k02', 'Read 1,204 files.', t(808))],
        role: 'assistant',
      },
    ],
    title: 'Map the repository',
  },
  {
    created: t(900),
    directory: '/home/dev/projects/big',
    id: ID.compacted,
    messages: [
      {created: t(900), id: 'msg_l01', parts: [text('prt_l01', 'Document every module', t(900))], role: 'user'},
      {
        completed: t(930),
        created: t(901),
        finish: 'stop',
        id: 'msg_l02',
        parts: [text('prt_l02', 'Documented 40 modules.', t(929))],
        role: 'assistant',
      },
      {created: t(931), id: 'msg_l03', parts: [{data: {auto: true, type: 'compaction'}, id: 'prt_l03'}], role: 'user'},
      {
        completed: t(940),
        created: t(932),
        finish: 'stop',
        id: 'msg_l04',
        parts: [text('prt_l04', 'Summary: documented 40 modules …', t(939))],
        role: 'assistant',
        summary: true,
      },
    ],
    title: 'Document the modules',
  },
  {
    created: t(1000),
    directory: '/home/dev/projects/poems',
    id: ID.placeholder,
    messages: [
      {created: t(1000), id: 'msg_m01', parts: [text('prt_m01', '\n  Write a haiku about SQLite\nand WAL mode', t(1000))], role: 'user'},
      {
        completed: t(1004),
        created: t(1001),
        finish: 'stop',
        id: 'msg_m02',
        parts: [text('prt_m02', 'Pages in the journal —', t(1003))],
        role: 'assistant',
      },
    ],
    title: 'New session - 2026-08-01T09:16:40.000Z',
  },
  {
    created: t(1100),
    directory: '/home/dev/projects/poems',
    id: ID.malformed,
    messages: [
      {created: t(1100), id: 'msg_n01', parts: [text('prt_n01', 'Count the words', t(1100))], role: 'user'},
      {created: t(1101), id: 'msg_n02', rawData: '{"role":"assistant","time":{"created":', role: 'assistant'},
      {
        completed: t(1106),
        created: t(1102),
        finish: 'stop',
        id: 'msg_n03',
        parts: [text('prt_n03', '1,024 words.', t(1105)), {data: {id: 'broken'}, id: 'prt_n04'}],
        role: 'assistant',
      },
    ],
    title: 'Count the words',
  },
]
