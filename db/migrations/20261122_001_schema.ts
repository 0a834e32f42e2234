import type { Knex } from 'knex';

// The data behind the contract, held the way an equipment system holds it. Returned assignments are
// soft-deleted (deleted_at); a return or an exchange records who processed it and why.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE countries (
      id   bigint PRIMARY KEY,
      code text NOT NULL UNIQUE CHECK (code ~ '^[A-Z]{2}$'),
      name text NOT NULL
    );

    CREATE TABLE companies (
      id   bigint PRIMARY KEY,
      name text NOT NULL UNIQUE
    );

    CREATE TABLE riders (
      id         bigint PRIMARY KEY,
      name       text   NOT NULL,
      company_id bigint NOT NULL REFERENCES companies,
      country_id bigint NOT NULL REFERENCES countries
    );
    CREATE INDEX riders_company_idx ON riders (company_id, id);
    CREATE INDEX riders_country_idx ON riders (country_id);

    CREATE TABLE patrollers (
      id   bigint PRIMARY KEY,
      name text NOT NULL
    );

    CREATE TABLE app_users (
      id   bigint PRIMARY KEY,
      name text NOT NULL
    );

    CREATE TABLE product_categories (
      id   integer PRIMARY KEY,
      name text NOT NULL
    );

    CREATE TABLE products (
      id                  bigint  PRIMARY KEY,
      name                text    NOT NULL,
      category_id         integer NOT NULL REFERENCES product_categories,
      image_url           text    NOT NULL,
      exchange_after_days integer NOT NULL CHECK (exchange_after_days > 0)
    );
    CREATE INDEX products_category_idx ON products (category_id);

    CREATE TABLE product_variations (
      id         bigint PRIMARY KEY,
      product_id bigint NOT NULL REFERENCES products,
      name       text   NOT NULL,
      UNIQUE (product_id, id)
    );

    -- assign_method: 0 = Manual, 1 = Physical. assign_type: how the record came to be.
    CREATE TABLE assignments (
      id            bigint      PRIMARY KEY,
      rider_id      bigint      NOT NULL REFERENCES riders,
      product_id    bigint      NOT NULL,
      variation_id  bigint      NOT NULL,
      assigned_at   timestamptz NOT NULL,
      assigned_by   bigint      NOT NULL REFERENCES app_users,
      assign_method smallint    NOT NULL CHECK (assign_method IN (0, 1)),
      assign_type   text        NOT NULL CHECK (assign_type IN ('assign', 'exchange')),
      deleted_at    timestamptz CHECK (deleted_at >= assigned_at),
      FOREIGN KEY (product_id, variation_id) REFERENCES product_variations (product_id, id)
    );
    CREATE INDEX assignments_rider_idx      ON assignments (rider_id, assigned_at, id);
    CREATE INDEX assignments_active_idx     ON assignments (rider_id) WHERE deleted_at IS NULL;
    CREATE INDEX assignments_returned_idx   ON assignments (rider_id) WHERE deleted_at IS NOT NULL;
    CREATE INDEX assignments_date_idx       ON assignments (assigned_at, id);
    CREATE INDEX assignments_product_idx    ON assignments (product_id, assigned_at, id);
    CREATE INDEX assignments_variation_idx  ON assignments (variation_id, assigned_at, id);
    CREATE INDEX assignments_method_idx     ON assignments (assign_method, assigned_at, id);
    CREATE INDEX assignments_assigned_by_idx ON assignments (assigned_by);

    CREATE TABLE product_returns (
      id            bigint      PRIMARY KEY,
      assignment_id bigint      NOT NULL UNIQUE REFERENCES assignments,
      returned_at   timestamptz NOT NULL,
      returned_by   bigint      NOT NULL REFERENCES app_users,
      condition     text        NOT NULL
    );
    CREATE INDEX product_returns_date_idx      ON product_returns (returned_at, id);
    CREATE INDEX product_returns_condition_idx ON product_returns (condition, returned_at, id);
    CREATE INDEX product_returns_user_idx      ON product_returns (returned_by);

    CREATE TABLE product_exchanges (
      id                bigint      PRIMARY KEY,
      old_assignment_id bigint      NOT NULL UNIQUE REFERENCES assignments,
      new_assignment_id bigint      NOT NULL UNIQUE REFERENCES assignments,
      exchanged_at      timestamptz NOT NULL,
      exchange_type     text        NOT NULL,
      replacement_type  text        NOT NULL CHECK (replacement_type IN ('Lost', 'Accident', 'Exchange')),
      processed_by      bigint      NOT NULL REFERENCES app_users,
      CHECK (old_assignment_id <> new_assignment_id)
    );
    CREATE INDEX product_exchanges_date_idx        ON product_exchanges (exchanged_at, id);
    CREATE INDEX product_exchanges_type_idx        ON product_exchanges (exchange_type, exchanged_at, id);
    CREATE INDEX product_exchanges_replacement_idx ON product_exchanges (replacement_type, exchanged_at, id);
    CREATE INDEX product_exchanges_user_idx        ON product_exchanges (processed_by);

    CREATE TABLE questions (
      id            bigint  PRIMARY KEY,
      country_id    bigint  NOT NULL REFERENCES countries,
      text          text    NOT NULL,
      question_type text    NOT NULL,
      category      text    NOT NULL
    );
    CREATE INDEX questions_country_idx ON questions (country_id, id);

    -- jump: the question to go to next when this answer is chosen ('' = the next one);
    -- skip: questions not asked after this answer.
    CREATE TABLE question_answers (
      question_id bigint   NOT NULL REFERENCES questions,
      position    smallint NOT NULL,
      name        text     NOT NULL,
      name_ar     text     NOT NULL,
      score       integer  NOT NULL,
      jump        text     NOT NULL DEFAULT '',
      skip        text[]   NOT NULL DEFAULT '{}',
      PRIMARY KEY (question_id, position)
    );

    CREATE TABLE patrol_checks (
      id             bigint      PRIMARY KEY,
      rider_id       bigint      NOT NULL REFERENCES riders,
      patroller_id   bigint      NOT NULL REFERENCES patrollers,
      checked_at     timestamptz NOT NULL,
      id_valid       boolean     NOT NULL,
      plate_valid    boolean     NOT NULL,
      sticker_valid  boolean     NOT NULL,
      fake_id_note   text,
      fake_id_images text[]      NOT NULL DEFAULT '{}'
    );
    CREATE INDEX patrol_checks_rider_idx     ON patrol_checks (rider_id, id);
    CREATE INDEX patrol_checks_patroller_idx ON patrol_checks (patroller_id, id);
    CREATE INDEX patrol_checks_date_idx      ON patrol_checks (checked_at, id);
    -- Failed checks are the rare, sought-after ones; passed ones are most rows and read in id order.
    CREATE INDEX patrol_checks_id_failed_idx      ON patrol_checks (id) WHERE NOT id_valid;
    CREATE INDEX patrol_checks_plate_failed_idx   ON patrol_checks (id) WHERE NOT plate_valid;
    CREATE INDEX patrol_checks_sticker_failed_idx ON patrol_checks (id) WHERE NOT sticker_valid;

    CREATE TABLE patrol_check_items (
      check_id      bigint   NOT NULL REFERENCES patrol_checks,
      position      smallint NOT NULL,
      assignment_id bigint   NOT NULL REFERENCES assignments,
      status        text     NOT NULL,
      image_url     text     NOT NULL,
      PRIMARY KEY (check_id, position)
    );
    CREATE INDEX patrol_check_items_assignment_idx ON patrol_check_items (assignment_id);

    CREATE TABLE patrol_check_answers (
      check_id    bigint   NOT NULL REFERENCES patrol_checks,
      position    smallint NOT NULL,
      question_id bigint   NOT NULL REFERENCES questions,
      answer      jsonb    CHECK (answer IS NULL OR jsonb_typeof(answer) IN ('string', 'array')),
      image_url   text,
      score       integer,
      PRIMARY KEY (check_id, position)
    );
    CREATE INDEX patrol_check_answers_question_idx ON patrol_check_answers (question_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE patrol_check_answers, patrol_check_items, patrol_checks, question_answers, questions,
      product_exchanges, product_returns, assignments, product_variations, products, product_categories,
      app_users, patrollers, riders, companies, countries;
  `);
}
