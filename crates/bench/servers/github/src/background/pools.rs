//! What a GitHub background draws from: repository upkeep for the task's repositories and small
//! personal projects for the user's own. No template (of this crate or a composition) uses any
//! of these titles, labels or repository names, so no goal can be about a background record
//! and no answer can match one; the tracker's background has titles of its own, so a title
//! never stands in both.

/// Labels of background issues; no template uses, creates or filters by them.
pub(crate) const LABELS: &[&str] = &[
    "chore",
    "dependencies",
    "ci",
    "tech-debt",
    "tooling",
    "housekeeping",
];

/// Titles of background issues: upkeep far from any task's topic.
pub(crate) const ISSUE_TITLES: &[&str] = &[
    "Pin the toolchain version in CI",
    "Move the pre-commit hooks to the shared config",
    "Drop the unused vendored fonts",
    "Sort the imports in the test helpers",
    "Split the Makefile into smaller includes",
    "Add an editorconfig for YAML files",
    "Update the copyright year in file headers",
    "Cache the dependency download step in CI",
    "Remove the commented-out prototype code",
    "Rename the misc folder to tools",
    "Check spelling in the code comments",
    "Bump the base image of the dev container",
    "Deduplicate the fixture loaders",
    "Add a CODEOWNERS entry for the scripts folder",
    "Silence the deprecation warnings in the test output",
    "Explain how to run the linters locally",
    "Shorten the CI job names",
    "Archive the old benchmark scripts",
    "Replace the hand-rolled version parser",
    "Turn on stricter type checks for the scripts",
    "Clean up the stale issue templates",
    "Normalize line endings in the sample data",
    "Merge the two contributor guides",
    "Speed up the nightly build",
];

/// What tells apart the issues a long history files under one title.
pub(crate) const AGAIN: &[&str] = &["", "", "", " (follow-up)", " (part 2)", " (again)"];

pub(crate) const ISSUE_BODIES: &[&str] = &[
    "Nothing urgent; whoever touches this area next can pick it up.",
    "Came up while reviewing an unrelated change.",
    "Small and self-contained, a good warm-up task.",
    "We agreed on this in the last maintainers' sync.",
    "Half done on an old branch that was deleted since.",
    "",
];

/// Comments on background issues and pull requests.
pub(crate) const REMARKS: &[&str] = &[
    "I can take this one next week.",
    "Is this still relevant?",
    "Linked the notes from the maintainers' sync.",
    "Parking this until the toolchain upgrade lands.",
    "Done locally, will push after the freeze.",
    "+1, this bit me again yesterday.",
];

/// Merged background pull requests: (head branch slug, title).
pub(crate) const PULLS: &[(&str, &str)] = &[
    (
        "bump-lint-rules",
        "Bump the lint rules to the latest release",
    ),
    ("pin-actions", "Pin CI actions to commit shas"),
    ("tidy-fixtures", "Tidy the test fixtures"),
    ("refresh-lockfile", "Refresh the lockfile"),
    ("reformat-yaml", "Reformat the YAML files"),
    ("drop-old-python", "Drop the Python 3.8 job"),
    ("move-scripts", "Move the helper scripts into tools/"),
    ("comment-typos", "Fix typos in code comments"),
    ("devcontainer-base", "Upgrade the dev container base image"),
    ("gitattributes", "Add a .gitattributes for the sample data"),
];

/// Prefixes of background pull requests' head branches.
pub(crate) const BRANCH_PREFIXES: &[&str] = &["chore", "deps", "cleanup"];

/// The user's own repositories beside the task's: (name, description). Past these, a name
/// gets a `-2`. No name or description contains a repository name or owner of a template
/// (`api` would otherwise find `rapid`), so a search for a task's repository finds only it.
pub(crate) const REPOS: &[(&str, &str)] = &[
    ("dotfiles", "My shell and editor configuration"),
    ("advent-puzzles", "Solutions to advent calendar puzzles"),
    ("homelab", "Configuration of the home server rack"),
    ("keyboard-layout", "A custom split keyboard layout"),
    ("recipe-box", "Family recipes in Markdown"),
    ("photo-sorter", "Sorts holiday photos into folders by date"),
    ("garden-planner", "Planting calendar for the allotment"),
    ("chess-openings", "Opening repertoire notes"),
    ("bike-routes", "Weekend cycling routes as GPX tracks"),
    ("plant-watering", "A soil moisture sensor sketch"),
    ("budget-sheet", "Household budget spreadsheet helpers"),
    ("pixel-art", "Small sprites and palettes"),
    ("book-log", "Books read and to read"),
    ("talk-slides", "Slides from meetup talks"),
    ("color-themes", "Terminal color themes"),
    ("sudoku-solver", "A backtracking sudoku solver"),
    ("trip-planner", "Packing lists and itineraries"),
    ("home-automation", "Rules for the lights and the heating"),
    ("wordle-clone", "A word game for the terminal"),
    ("ray-tracer", "A weekend ray tracer"),
];

/// Commit messages in the user's own repositories.
pub(crate) const COMMITS: &[&str] = &[
    "Add the first draft",
    "Fix a typo",
    "Update the notes",
    "Tweak the layout",
    "Add a to-do list",
    "Tidy up",
];

/// Notes files the user's commits write.
pub(crate) const NOTES: &[&str] = &[
    "Ideas to try next.",
    "Things that worked.",
    "Open questions.",
    "Links worth keeping.",
];
