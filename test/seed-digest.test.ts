// Golden master of the demo seed: what seedDemo writes for fixed options, as a SHA-256 digest of every
// table's full contents (test/support/table-digest.ts). The expected digests were recorded from the
// generator as it was when this test was written; a refactoring of db/seeds must leave them unchanged.
//
// A change meant to alter the demo data (new fields, other odds, another table) changes these digests
// too (and a new migration changes `sequences`: knex counts the migrations it applied). Then regenerate them: run this file alone,
//   node --experimental-vm-modules node_modules/jest/bin/jest.js test/seed-digest.test.ts
// and copy the received values the failure shows into the expectations below, in the same commit as
// the change. Only the tables named in the diff should differ.
import { DEFAULT_DEMO, DEMO_ANCHOR, type DemoOptions } from '../db/seeds/demo';
import { testDatabases } from './support/databases';
import { seededDigests } from './support/table-digest';

// Three fresh databases, one of 4,000 riders: a few seconds each on a quiet machine.
jest.setTimeout(180000);

/** SHA-256 of nothing: a table the seed leaves empty. */
const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const digestsOf = (label: string, options: DemoOptions) =>
  seededDigests(process.env.TEST_ADMIN_URL!, `${testDatabases().demo}_digest_${label}`, options);

describe('the demo seed writes exactly the recorded data', () => {
  // The demo `npm start` and the tests load (300 riders, seed 42), with the fixed anchor: `npm start`
  // ends the history at the current minute instead, which only moves every date by the same amount.
  it('for the default demo with the fixed anchor', async () => {
    expect(await digestsOf('default', { ...DEFAULT_DEMO, anchor: DEMO_ANCHOR })).toEqual({
      'access.api_tokens': EMPTY,
      'access.attention_batches': EMPTY,
      'access.attention_gives': EMPTY,
      'access.attention_handled': EMPTY,
      'access.attention_owners': EMPTY,
      'access.supervisor_notes': EMPTY,
      'access.supervisor_preferences': EMPTY,
      'access.rate_limits': EMPTY,
      'access.sessions': EMPTY,
      'access.supervisors': EMPTY,
      'public.app_users': 'd89207ed284f4fb1a6277be8291d4b79d2eeaf0b4ed7ce4afef6d869e354d20e',
      'public.assignments': '8c5818eebc37471d1b8a9a53806bb87395959f0c9fd6d540ec6ddd7c6ba562ec',
      'public.companies': '3faf0cf2169b27d6c0759a563d4b3c4266a9bb379c60b7fb5586a7a0701f5a98',
      'public.countries': 'b4bc8ef966480b6b063fc8d0baa0b27a818ef0fe2f1c2f04aeeeea5310a6f0c3',
      'public.kept_assignment_days': '32d415476bf049d7c5ed12a529db2b65eb8284ad597ccc37dca1a244397447a6',
      'public.kept_changes': EMPTY,
      'public.kept_check_gaps': '8ed36527887819007c66ace16b311c553288dfb286b4dfbe9b5bb35bed15273b',
      'public.kept_check_quarters': '3c36c87e205778a65a4766be4abe3d07e9d9af87f93376c8feff71cbaa7ca70c',
      'public.kept_company_riders': 'f5f7b8dbde7aaa18cece97a72beec10529ce65e281c1efb2158d7e2e1084b7a7',
      'public.kept_exchange_days': 'f86be9cb39562e0000b58b7478bcc2018f699e6467be5d7b61e2d6f20ff723c7',
      'public.kept_exchange_quarters': '18e089363fd92a4a18c8ec0e29aa68531301ea623c7e3426a9ee203938e425a1',
      'public.kept_held_items': '3e40c8672cbf104fa7e65639f5df2586733286e6b9c126e1a210a38a06913212',
      'public.kept_log_state': '081766ef28b9ed3fc3e11def02e124dd396dbbaa3d9a6f4469c31a21423b4eb9',
      'public.kept_moved_riders': EMPTY,
      'public.kept_rider_held': 'c5dccf1181b3a661d0be96f99f91dd152aac3f5e28f15dfccc6ed37468445a35',
      'public.kept_rider_name_gram_counts': '40e6b0da2417420830160dcacdcae17e368de92083b570df2ea3eedfecd9b7cc',
      'public.kept_rider_name_grams': 'a31aceeaa6abc7c32d095ece59cc8e410f6e9efeb8b4ae697bcb47d57628c01d',
      'public.kept_riders': '83959c3871b06a9828f39b6213a361ee908dbdfc8192496e798e9b8198cca9a8',
      'public.kept_rule_days': '4d2a67e09f2ac2f394d139c9357af4024af451965ef5b871f5bb86c1c0eb3327',
      'public.kept_rule_riders': '833699d6c2daf85dc0bc046842fce1c84c933c6d1357e3a34f216ef737954e1c',
      'public.kept_rule_settings': 'fecfb69c7bda1ace439ae14789ee33c8652665c80a37443caef6b2e7e3668853',
      'public.patrol_check_answers': 'e5aafaa421e85eb42f4e94fe8b0b4bf43930b02e6500372fe80015ccc39971ba',
      'public.patrol_check_items': '14a9e42634917ff45836ff678c8720a17a90f9fb160b5349e2ff4440dc0ec4cc',
      'public.patrol_check_questioners': 'a11a9829f4e5bc721275adba1042c8d030f21845c8e387536f9a51a640fddef2',
      'public.patrol_checks': '85c95f7a5d7bb9c24b7ea187e9fb50f633385115c905939ab54af36402d3bea4',
      'public.patrollers': '5ba6fd3b4069050a33bb22e167676fefa8475a7067b979d0ce5c73b30a213591',
      'public.product_categories': '83c915764a030011b66b522b25ce4b3f2d809abb1310ac077cfd504a048c1228',
      'public.product_exchanges': '388764003c278a348950c5e11c5b55050f1d8af2048eae7dbb2cf53c57a6a137',
      'public.product_returns': '29f9eae10dd6974e0cdb7541ffc8be0516084eae15a361ccd80a9caed65bdfaa',
      'public.product_variations': 'eda06a2afdb035c9c20d6bbe99b26a457bc6dd04b3ddbcca1944f0a8df1c4212',
      'public.products': 'd1ff3220601e8452aa1ab2c6813fb035576c7fe65dcd85898f264426f320856c',
      'public.question_answers': '9cd6e58c1e5708dcb7a88d14f3a12f03077eb44244d9edc1d9f8ee8022d9751f',
      'public.questions': '0362ca297318993c4fd7f770132a7a797b6cdb651075f67c773f096d8d639340',
      'public.rider_list_blocks': 'c44ace4a33d5ae74d47dc1a2822de6cbdc0935c9127a3fd2962e13233452ab8f',
      'public.rider_list_entries': '6309b642cc9c61ffa3e1d6983a2e339e2521074920f542cbd692b30845efccc3',
      'public.rider_list_zone': '9dfa6e007602b1b0b298347147f3132539abb399e73dd82b7cc31906a3443be5',
      'public.riders': '7cfa53b2e5bb91486298916321f07fc0461679dcb04e82d3d6ff64eb90bff14c',
      sequences: '45e42c02da04cbed493c5e41dbf3d1c2afa6f66514ae5987d51f5830b4e4e055',
    });
  });

  // The tests' large database (test/support/global-setup.ts), seeded without an anchor.
  it('for 4,000 riders of seed 7', async () => {
    expect(await digestsOf('large', { riders: 4000, seed: 7 })).toEqual({
      'access.api_tokens': EMPTY,
      'access.attention_batches': EMPTY,
      'access.attention_gives': EMPTY,
      'access.attention_handled': EMPTY,
      'access.attention_owners': EMPTY,
      'access.supervisor_notes': EMPTY,
      'access.supervisor_preferences': EMPTY,
      'access.rate_limits': EMPTY,
      'access.sessions': EMPTY,
      'access.supervisors': EMPTY,
      'public.app_users': 'd167e98991e0902ace255bac757bbb6c1fbaac6433db02fc5b8d30edef1fa336',
      'public.assignments': 'f3377538cb523116f5f5e1b0da9d25d995b13a50785fe46729008cfdb4fb5ded',
      'public.companies': '3faf0cf2169b27d6c0759a563d4b3c4266a9bb379c60b7fb5586a7a0701f5a98',
      'public.countries': 'b4bc8ef966480b6b063fc8d0baa0b27a818ef0fe2f1c2f04aeeeea5310a6f0c3',
      'public.kept_assignment_days': 'bfb2333f5394ba791da3461741304a5dab60b82d294f181ef4b52d9aef7f60d8',
      'public.kept_changes': EMPTY,
      'public.kept_check_gaps': '5f24c88ce076c78f02ef79d269b2db9fc346a64d96629004d20c5335cbfe108e',
      'public.kept_check_quarters': 'bc0124c3f2bfd1ef0cd07ef93dff8ee81b40ae0ee4db8dc5f81121e23769a46a',
      'public.kept_company_riders': '5fc4756bc6d644ad8b1f6579b4e03c38e14cefe6d8e785a6a09a4d68d4f79579',
      'public.kept_exchange_days': '17b608f3781e559031e44d9ecf15836e06306f327ffeb50994cb9efdefb66822',
      'public.kept_exchange_quarters': '29dfc2ee605685207b66edaf5677d94a8996afcc30c269e4d332ead9ecbf8219',
      'public.kept_held_items': 'b84ff752157e43f736c7bd38bf68210f461030e5471796eb7177847fc06649d0',
      'public.kept_log_state': '081766ef28b9ed3fc3e11def02e124dd396dbbaa3d9a6f4469c31a21423b4eb9',
      'public.kept_moved_riders': EMPTY,
      'public.kept_rider_held': '2161bcf42af8d532328dc8b8aab765f0ec0877243a3a168bca3be3c207b7e6b1',
      'public.kept_rider_name_gram_counts': '5834d1b9d4c9bd20fab96c4dede32b4d3e04669a2cf89d3443fcd36077feb792',
      'public.kept_rider_name_grams': 'd11663ae7f99e049a965e8ba337c27a0d9646cd363b2788fa2e134dd79c7d2dc',
      'public.kept_riders': '6e31d8df29a209337bba80034ce660c28d3b56e7d59caa62e24f7381fe543416',
      'public.kept_rule_days': '5b6dd48e46f16a403bf1b72217ad22c54077f9c26e2976854ea42592b187e24f',
      'public.kept_rule_riders': 'cdab0912a9cc987b7db765beaa093a9bea40c43e49680e2dfe995f11c845bb0e',
      'public.kept_rule_settings': 'fecfb69c7bda1ace439ae14789ee33c8652665c80a37443caef6b2e7e3668853',
      'public.patrol_check_answers': 'c2a310430fb7fd0c38546191cff54f63e6fc94b112751e743fddf69adea644af',
      'public.patrol_check_items': 'd3c0b7dbc85ba257ead3f60758a3d605723c17da9d3f3b185902867e7c017aed',
      'public.patrol_check_questioners': '9e8a51cae74f4443616233f81cabf89ace645bdbe77d6a2cd21f2ec5cd4906e7',
      'public.patrol_checks': '8d5e6eb42c83fdcdc87c5f449e69983fe50e4fc13ba1b81f9090e189f3191e3f',
      'public.patrollers': 'bebec338ca92c6f1912a34cad3a6ac263bd6d50ee0ccbc4998ac41b2b8f9a4d8',
      'public.product_categories': '83c915764a030011b66b522b25ce4b3f2d809abb1310ac077cfd504a048c1228',
      'public.product_exchanges': '82c882467780169a8d69e3745cf83785e1d9d6f878d11c900d9f1d00926025bb',
      'public.product_returns': '961901b993dbb114147665789e26f9b34d3c242dab89543bad0bf7a7f3ab6570',
      'public.product_variations': '7c8d0162f90c3c9564b05c8d63ae154b66758faa3a59de40ec1f7f2c43732150',
      'public.products': '10e118c71744d7527b79bfe321bf83eb8ff6cdbd95d1ee54361fb7097b6169e9',
      'public.question_answers': 'b93237f14a3e8ffbb4024aae73be9c4420d70e7da9c5d57e3ab4fed16bcc8199',
      'public.questions': '52d4cf7885c9078ea64792748e0fad9695f153cde4c56831c2809b99d68293a2',
      'public.rider_list_blocks': '0a6c9e53dadd5328fe5c0ba8460ef368c76e89384454545cdb5e07e3ccad63b1',
      'public.rider_list_entries': '34101622d4bd75edec39b8548f03d27bd335601e77dcd62700017910c02572ec',
      'public.rider_list_zone': '9dfa6e007602b1b0b298347147f3132539abb399e73dd82b7cc31906a3443be5',
      'public.riders': 'bde2dfb457a2d60eedc5bdd8c153f03f6dad592890332d78efd9cfe354e5e2b7',
      sequences: '45e42c02da04cbed493c5e41dbf3d1c2afa6f66514ae5987d51f5830b4e4e055',
    });
  });

  // Another anchor, on a whole minute as `npm start` gives: dates follow the anchor, nothing else moves.
  it('for 40 riders of seed 3 ending at 2025-03-14 09:26 UTC', async () => {
    expect(await digestsOf('anchored', { riders: 40, seed: 3, anchor: Date.UTC(2025, 2, 14, 9, 26) })).toEqual({
      'access.api_tokens': EMPTY,
      'access.attention_batches': EMPTY,
      'access.attention_gives': EMPTY,
      'access.attention_handled': EMPTY,
      'access.attention_owners': EMPTY,
      'access.supervisor_notes': EMPTY,
      'access.supervisor_preferences': EMPTY,
      'access.rate_limits': EMPTY,
      'access.sessions': EMPTY,
      'access.supervisors': EMPTY,
      'public.app_users': 'bcc3cf4f170f1723c0218b7c58165eedb89a11ba3895fa52949f166f3f49fe3e',
      'public.assignments': 'd2b64d95bf68ab70722e0ed5523f107a60a7839cdb85ff14090b2183bbb1c442',
      'public.companies': '3faf0cf2169b27d6c0759a563d4b3c4266a9bb379c60b7fb5586a7a0701f5a98',
      'public.countries': 'b4bc8ef966480b6b063fc8d0baa0b27a818ef0fe2f1c2f04aeeeea5310a6f0c3',
      'public.kept_assignment_days': '51be292e3a1e45b54cedf26545ece48ac2287a05c1b750fd896b8b056dfedecf',
      'public.kept_changes': EMPTY,
      'public.kept_check_gaps': '7b0666027fc3d16977999068e3868ca29a82f8d0580b9a2df8a2cb722036810f',
      'public.kept_check_quarters': 'da01f2c75bbb679da16a8ee7c45b967d79ff56386ff50cfe6020290f88ad4a38',
      'public.kept_company_riders': '86d6207149e8ee18d2b27644ceeafd77119e7b13458bdcf059db29ebbd432d9c',
      'public.kept_exchange_days': 'a18a5aeccad3649ea241b8552e86ab37409364eceeceb9ef6e3f45b597368907',
      'public.kept_exchange_quarters': '0a9295362918baad0dbdb73b24e287f4e0bee946203b5e669598be5760bea949',
      'public.kept_held_items': '6f20d8928833b805f3d8e2f5ec739e8df243aeb9d55b39348c9b200aa84fa942',
      'public.kept_log_state': '081766ef28b9ed3fc3e11def02e124dd396dbbaa3d9a6f4469c31a21423b4eb9',
      'public.kept_moved_riders': EMPTY,
      'public.kept_rider_held': '1458bcc3ffd5508be8d2c897a644ff87d9afa5d2228ca61e3d63b26342807f5e',
      'public.kept_rider_name_gram_counts': '9e368b997747b608b711069116348d7b9a38d5300933fd66fdee573ba8a26682',
      'public.kept_rider_name_grams': 'a3b5307faade7d7ec3089e2b04cbe150c511b52c4db4f8b1f69f6b1a10930aad',
      'public.kept_riders': '895f612a86b04d87f32748bc53930b51d591d5536313e7cab8d084181bdd9298',
      'public.kept_rule_days': 'e1a8e071e80d62fc2d7a775b71168a41255fdb8010f865ab84483420c19193d1',
      'public.kept_rule_riders': '40d80d0a06cb07638055a17431e1450d83ce0d26287d7a2842c6cff30c93896d',
      'public.kept_rule_settings': 'fecfb69c7bda1ace439ae14789ee33c8652665c80a37443caef6b2e7e3668853',
      'public.patrol_check_answers': '9edbebdc930bb5f9c18cf0ee64df62b8f2d34e13b50737d5d7acae4e09b7b0a2',
      'public.patrol_check_items': 'deee9ca3154234a38b248bfba97d1054e7d23561236615006e7acebda5b6518d',
      'public.patrol_check_questioners': '09ade8c2c895df5704237b0a67a8ccf8fe9b2be29fb2f70fc334931dd54ce62f',
      'public.patrol_checks': '4b58aa96901febe63e91650113b1a43fd2397892ccfbb6bea986fc2de6c93238',
      'public.patrollers': '4f8ba89ac46221a4272fb80d242f98d261225aa413f54779f6587caac3311064',
      'public.product_categories': '83c915764a030011b66b522b25ce4b3f2d809abb1310ac077cfd504a048c1228',
      'public.product_exchanges': '0a421c5cc81bd38e416f6632f9119625d025f375dc848dec4dba98369efb1d83',
      'public.product_returns': '11150a1a1f8f66e601b593c72b0f9bd1878109b37e3f68855a3fde20f644634b',
      'public.product_variations': '3fe18db3d9bf3fb8f687fb79fbd2391e269ad0ba9772c700e8c94b52cfee6099',
      'public.products': 'e3307f5eb1228f2de2c8ffe142f9c4b7eefc84797474b33fea13184e77e7e8fc',
      'public.question_answers': '5867443fc02d7f01d356848842d5adf11557025e5d81a8a1029f8d02d8140007',
      'public.questions': 'c022c8a627d65088dd61f68dd1e2207c3ae398801321b18caf8cd3a8b596c833',
      'public.rider_list_blocks': '09c194eee1baffa2cfbf950c3e1303427870c1a8f839cd28bb56ae4fa1f49efb',
      'public.rider_list_entries': 'd6ffe318a9639c1f305f53b5cb24901eed8867a7d73e45443d974c03289760f2',
      'public.rider_list_zone': '9dfa6e007602b1b0b298347147f3132539abb399e73dd82b7cc31906a3443be5',
      'public.riders': 'a93ac7c637dc08a7eaea68a9590225990ece5fd4924dca6a59db847aa6e46702',
      sequences: '45e42c02da04cbed493c5e41dbf3d1c2afa6f66514ae5987d51f5830b4e4e055',
    });
  });
});
