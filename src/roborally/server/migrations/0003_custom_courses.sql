-- Custom courses players uploaded (docs/server.md "Custom courses"). A deleted course keeps
-- its row without its text, so its id is never given to another course.
CREATE TABLE custom_courses (
    id TEXT PRIMARY KEY,              -- c- and 8 characters of base32
    created DOUBLE PRECISION NOT NULL,
    address TEXT NOT NULL,            -- the uploader's per-address key (an IPv6 /64)
    author TEXT NOT NULL,
    listed BOOLEAN NOT NULL,          -- in GET /api/custom-courses, or by its link only
    owner_hash TEXT NOT NULL,         -- SHA-256 of the owner token
    summary TEXT NOT NULL,            -- JSON: the course's summary
    text TEXT,                        -- the canonical course file; NULL once deleted
    deleted DOUBLE PRECISION          -- when it was deleted; NULL while kept
);
CREATE INDEX custom_courses_listed ON custom_courses (listed, deleted, created);
CREATE INDEX custom_courses_address ON custom_courses (address, deleted);
