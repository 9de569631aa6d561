"""The files of the near-miss corpus, one per language, each with the edits meant on it.

Each edit is (old, new) as the file really has old: the corpus (cases.py) writes them the way
models get them wrong, and expects the file as this exact edit would leave it.
"""

from __future__ import annotations

PYTHON = '''"""Orders and what they cost."""

import logging
from dataclasses import dataclass

log = logging.getLogger(__name__)
TAX_RATE = 0.2  # the shop's one rate


@dataclass
class Line:
    name: str
    quantity: int
    unit_price: float

    def total(self) -> float:
        return self.quantity * self.unit_price


class Order:
    def __init__(self, customer: str):
        self.customer = customer
        self.lines: list[Line] = []

    def add(self, name: str, quantity: int, unit_price: float) -> None:
        if quantity <= 0:
            raise ValueError(f"quantity must be positive, got {quantity}")
        self.lines.append(Line(name, quantity, unit_price))
        log.debug("added %s x%d", name, quantity)

    def subtotal(self) -> float:
        return sum(line.total() for line in self.lines)

    def total(self) -> float:
        subtotal = self.subtotal()

        tax = subtotal * TAX_RATE
        return round(subtotal + tax, 2)


def describe(order: Order) -> str:
    names = ", ".join(line.name for line in order.lines)
    return f"{order.customer}: {names} - {order.total():.2f}"
'''

PYTHON_EDITS = [
    ('''        if quantity <= 0:
            raise ValueError(f"quantity must be positive, got {quantity}")
''', '''        if quantity <= 0 or quantity > 10:
            raise ValueError(f"quantity must be 1 to 10, got {quantity}")
'''),
    ('''    def total(self) -> float:
        subtotal = self.subtotal()

        tax = subtotal * TAX_RATE
        return round(subtotal + tax, 2)
''', '''    def total(self) -> float:
        subtotal = self.subtotal()

        tax = subtotal * TAX_RATE
        shipping = 0.0 if subtotal > 50 else 4.5
        return round(subtotal + tax + shipping, 2)
'''),
    ('''def describe(order: Order) -> str:
    names = ", ".join(line.name for line in order.lines)
    return f"{order.customer}: {names} - {order.total():.2f}"
''', '''def describe(order: Order) -> str:
    names = ", ".join(sorted(line.name for line in order.lines))
    return f"{order.customer}: {names} - {order.total():.2f} EUR"
'''),
    ('''    def __init__(self, customer: str):
        self.customer = customer
        self.lines: list[Line] = []
''', '''    def __init__(self, customer: str, note: str = ""):
        self.customer = customer
        self.note = note
        self.lines: list[Line] = []
'''),
]

TYPESCRIPT = '''import { readFile } from "node:fs/promises";

export interface User {
  id: number;
  name: string;
  email?: string;
}

const cache = new Map<number, User>();

export async function loadUsers(path: string): Promise<User[]> {
  const text = await readFile(path, "utf8");
  const users: User[] = JSON.parse(text);
  for (const user of users) {
    cache.set(user.id, user);
  }
  return users;
}

export function findUser(id: number): User | undefined {
  if (!cache.has(id)) {
    console.warn(`user ${id} is not loaded`);
    return undefined;
  }
  return cache.get(id);
}

export function greeting(user: User): string {
  const name = user.name.trim() || "friend";

  return `Hello, ${name}!`;
}
'''

TYPESCRIPT_EDITS = [
    ('''  for (const user of users) {
    cache.set(user.id, user);
  }
''', '''  for (const user of users) {
    if (cache.has(user.id)) {
      console.warn(`duplicate user ${user.id}`);
    }
    cache.set(user.id, user);
  }
'''),
    ('''  if (!cache.has(id)) {
    console.warn(`user ${id} is not loaded`);
    return undefined;
  }
''', '''  if (!cache.has(id)) {
    return undefined;
  }
'''),
    ('''export function greeting(user: User): string {
  const name = user.name.trim() || "friend";

  return `Hello, ${name}!`;
}
''', '''export function greeting(user: User, formal = false): string {
  const name = user.name.trim() || "friend";

  return formal ? `Dear ${name},` : `Hello, ${name}!`;
}
'''),
    ('''export interface User {
  id: number;
  name: string;
  email?: string;
}
''', '''export interface User {
  id: number;
  name: string;
  email?: string;
  admin: boolean;
}
'''),
]

GO = '''package store

import (
\t"errors"
\t"fmt"
\t"sync"
)

var ErrMissing = errors.New("store: key not found")

type Store struct {
\tmu    sync.Mutex
\titems map[string]int
}

func New() *Store {
\treturn &Store{items: make(map[string]int)}
}

func (s *Store) Get(key string) (int, error) {
\ts.mu.Lock()
\tdefer s.mu.Unlock()
\tvalue, ok := s.items[key]
\tif !ok {
\t\treturn 0, fmt.Errorf("get %q: %w", key, ErrMissing)
\t}
\treturn value, nil
}

func (s *Store) Add(key string, delta int) int {
\ts.mu.Lock()
\tdefer s.mu.Unlock()

\ts.items[key] += delta
\treturn s.items[key]
}
'''

GO_EDITS = [
    ('''\tvalue, ok := s.items[key]
\tif !ok {
\t\treturn 0, fmt.Errorf("get %q: %w", key, ErrMissing)
\t}
''', '''\tvalue, ok := s.items[key]
\tif !ok || value < 0 {
\t\treturn 0, fmt.Errorf("get %q: %w", key, ErrMissing)
\t}
'''),
    ('''func (s *Store) Add(key string, delta int) int {
\ts.mu.Lock()
\tdefer s.mu.Unlock()

\ts.items[key] += delta
\treturn s.items[key]
}
''', '''func (s *Store) Add(key string, delta int) int {
\ts.mu.Lock()
\tdefer s.mu.Unlock()

\ts.items[key] += delta
\tif s.items[key] == 0 {
\t\tdelete(s.items, key)
\t}
\treturn s.items[key]
}
'''),
    ('''type Store struct {
\tmu    sync.Mutex
\titems map[string]int
}
''', '''type Store struct {
\tmu    sync.Mutex
\titems map[string]int
\tname  string
}
'''),
    ('''func New() *Store {
\treturn &Store{items: make(map[string]int)}
}
''', '''func New(name string) *Store {
\treturn &Store{items: make(map[string]int), name: name}
}
'''),
]

RUST = '''use std::collections::HashMap;
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Number(f64),
    Word(String),
    Symbol(char),
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Number(n) => write!(f, "{}", n),
            Token::Word(w) => write!(f, "{}", w),
            Token::Symbol(c) => write!(f, "'{}'", c),
        }
    }
}

pub fn count_words(tokens: &[Token]) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for token in tokens {
        if let Token::Word(word) = token {
            *counts.entry(word.to_lowercase()).or_insert(0) += 1;
        }
    }

    counts
}
'''

RUST_EDITS = [
    ('''        if let Token::Word(word) = token {
            *counts.entry(word.to_lowercase()).or_insert(0) += 1;
        }
''', '''        if let Token::Word(word) = token {
            if word.len() > 2 {
                *counts.entry(word.to_lowercase()).or_insert(0) += 1;
            }
        }
'''),
    ('''            Token::Symbol(c) => write!(f, "'{}'", c),
''', '''            Token::Symbol(c) => write!(f, "`{}`", c),
'''),
    ('''#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Number(f64),
    Word(String),
    Symbol(char),
}
''', '''#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Number(f64),
    Word(String),
    Symbol(char),
    End,
}
'''),
    ('''    let mut counts = HashMap::new();
    for token in tokens {
''', '''    let mut counts = HashMap::with_capacity(tokens.len());
    for token in tokens {
'''),
]

YAML = '''name: build
on:
  push:
    branches: [main]
  pull_request:

jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python: ["3.10", "3.11", "3.12"]
    steps:
      - uses: actions/checkout@v4
      - name: Set up Python
        uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python }}
      - name: Install
        run: pip install -e '.[test]'

      - name: Test
        run: pytest -q --maxfail=1
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pipx run ruff check .
'''

YAML_EDITS = [
    ('''      - name: Install
        run: pip install -e '.[test]'

      - name: Test
        run: pytest -q --maxfail=1
''', '''      - name: Install
        run: pip install -e '.[test]'

      - name: Test
        run: pytest -q --maxfail=1 -n auto
        timeout-minutes: 20
'''),
    ('''    strategy:
      matrix:
        python: ["3.10", "3.11", "3.12"]
''', '''    strategy:
      fail-fast: false
      matrix:
        python: ["3.10", "3.11", "3.12", "3.13"]
'''),
    ('''  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pipx run ruff check .
''', '''  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pipx run ruff check --output-format=github .
'''),
    ('''  push:
    branches: [main]
''', '''  push:
    branches: [main, "release/*"]
'''),
]

MARKDOWN = '''# Tiles

A small library for drawing map tiles - fast, and without a GPU.

## Install

```sh
pip install tiles
```

## Use it

Give it a bounding box and a zoom level:

```python
from tiles import render

image = render(bbox=(5.9, 45.8, 10.5, 47.8), zoom=8)
image.save("switzerland.png")
```

It's "good enough" for previews; for print, use a real renderer.

## Licence

MIT - see LICENSE.
'''

MARKDOWN_EDITS = [
    ('''It's "good enough" for previews; for print, use a real renderer.
''', '''It's "good enough" for previews and thumbnails; for print, use a real renderer.
'''),
    ('''```python
from tiles import render

image = render(bbox=(5.9, 45.8, 10.5, 47.8), zoom=8)
image.save("switzerland.png")
```
''', '''```python
from tiles import render

image = render(bbox=(5.9, 45.8, 10.5, 47.8), zoom=8, dpi=144)
image.save("switzerland.png")
```
'''),
    ('''A small library for drawing map tiles - fast, and without a GPU.
''', '''A small library for drawing map tiles - fast, offline, and without a GPU.
'''),
    ('''## Licence

MIT - see LICENSE.
''', '''## Licence

MIT - see LICENSE. Map data: OpenStreetMap contributors.
'''),
]

C = '''#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUFFER_SIZE 10

struct buffer {
    char *data;
    size_t length;
    size_t capacity;
};

static int grow(struct buffer *b, size_t wanted)
{
    size_t capacity = b->capacity ? b->capacity : BUFFER_SIZE;
    while (capacity < wanted) {
        capacity *= 2;
    }
    char *data = realloc(b->data, capacity);
    if (data == NULL) {
        return -1;
    }
    b->data = data;
    b->capacity = capacity;
    return 0;
}

int buffer_append(struct buffer *b, const char *text)
{
    size_t n = strlen(text);
    if (grow(b, b->length + n + 1) != 0) {
        fprintf(stderr, "out of memory\\n");
        return -1;
    }
    memcpy(b->data + b->length, text, n + 1);
    b->length += n;
    return 0;
}
'''

C_EDITS = [
    ('''    while (capacity < wanted) {
        capacity *= 2;
    }
''', '''    while (capacity < wanted) {
        if (capacity > SIZE_MAX / 2) {
            return -1;
        }
        capacity *= 2;
    }
'''),
    ('''    if (grow(b, b->length + n + 1) != 0) {
        fprintf(stderr, "out of memory\\n");
        return -1;
    }
''', '''    if (grow(b, b->length + n + 1) != 0) {
        fprintf(stderr, "buffer_append: out of memory (%zu bytes)\\n", b->length + n + 1);
        return -1;
    }
'''),
    ('''struct buffer {
    char *data;
    size_t length;
    size_t capacity;
};
''', '''struct buffer {
    char *data;
    size_t length;
    size_t capacity;
    int frozen;
};
'''),
    ('''#define BUFFER_SIZE 10
''', '''#define BUFFER_SIZE 64
'''),
]

SOURCES = {
    "orders.py": (PYTHON, PYTHON_EDITS),
    "users.ts": (TYPESCRIPT, TYPESCRIPT_EDITS),
    "store.go": (GO, GO_EDITS),
    "tokens.rs": (RUST, RUST_EDITS),
    "build.yml": (YAML, YAML_EDITS),
    "README.md": (MARKDOWN, MARKDOWN_EDITS),
    "buffer.c": (C, C_EDITS),
}
