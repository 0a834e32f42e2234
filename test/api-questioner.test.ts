import request from 'supertest';
import { testApp, type TestApp } from './support/app';

let t: TestApp;
beforeAll(() => (t = testApp()));
afterAll(() => t.close());

describe('GET /v2/questioner', () => {
  it('lists every question by question_id, with answers in their order', async () => {
    const res = await request(t.app).get('/v2/questioner').expect(200);
    expect(res.body.map((q: { question_id: number }) => q.question_id)).toEqual([301, 302, 303, 304]);
    expect(res.body[0]).toEqual({
      question_id: 301,
      question: 'Is the helmet worn?',
      question_type: 'MULTIPLE_CHOICE:SINGLE',
      answers: [
        { jump: '', name: 'Yes', skip: [], score: '2', name_ar: 'نعم' },
        { jump: '303', name: 'No', skip: ['302'], score: '-3', name_ar: 'لا' },
      ],
    });
    expect(Object.keys(res.body[0])).toEqual(['question_id', 'question', 'question_type', 'answers']);
    expect(Object.keys(res.body[0].answers[0])).toEqual(['jump', 'name', 'skip', 'score', 'name_ar']);
    expect(res.body[2]).toEqual({ question_id: 303, question: 'Photo of the bike', question_type: 'PHOTO', answers: [] });
  });

  it("filters by country_id to one country's questionnaire", async () => {
    const res = await request(t.app).get('/v2/questioner?country_id=2').expect(200);
    expect(res.body).toEqual([
      {
        question_id: 304,
        question: 'Is the uniform clean?',
        question_type: 'MULTIPLE_CHOICE:SINGLE',
        answers: [
          { jump: '', name: 'Yes', skip: [], score: '1', name_ar: 'نعم' },
          { jump: '', name: 'No', skip: ['305', '306'], score: '0', name_ar: 'لا' },
        ],
      },
    ]);
    expect((await request(t.app).get('/v2/questioner?country_id=3').expect(200)).body).toEqual([]);
  });
});
