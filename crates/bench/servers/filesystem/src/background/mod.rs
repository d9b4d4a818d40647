//! A lived-in tree beside the task's own files: a home directory of side projects, pictures,
//! music, paperwork, trips and recipes, and a few services beside the task's system folders,
//! written in the seed as a seed and a count and expanded when the filesystem is built.
//!
//! It hangs from the seed's own roots, so that location does not tell it apart: every home the
//! seed uses (`/home/dana`, or one of its own when the seed has none) and every top folder of
//! the seed's other files (`/etc`, `/srv`, ...). It adds entries to those folders only, never
//! to a folder that holds one of the seed's files directly (a listing a task reads, such as
//! `/var/acme` or `/team`) or that the seed names as a directory, except a home itself. Its
//! folder and file names belong to no template, and no path of it is one slip from the seed's.

use crate::state::{Seed, parent};
use mcpbench_sim::Rng;
use mcpbench_sim::background::{FIRST_NAMES, one_slip_apart};
use mcpbench_sim::dates::month_name;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

mod pools;
use pools::*;

/// The most background files a seed may ask for (with their folders, well within the 5,000
/// entries a run holds).
pub const MAX_FILES: u32 = 1_000;

/// `initial_state.filesystem.background`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Background {
    /// The stream the tree is drawn from.
    pub seed: u32,
    /// How many files, at most 1,000, in nested folders of their own.
    #[schemars(range(max = 1000))]
    pub files: u32,
}

impl Background {
    /// A tree of 60 to 160 files.
    pub fn draw(rng: &mut Rng) -> Self {
        Background {
            seed: rng.below(1 << 32) as u32,
            files: rng.range(60, 160) as u32,
        }
    }
}

/// The background's files for `seed`: (path, content), none of them the seed's.
pub(crate) fn files(background: &Background, seed: &Seed) -> Vec<(String, String)> {
    let mut rng = Rng::new(u64::from(background.seed), 0x6669_6c65);
    let layout = Layout::of(seed);
    let mut homes = layout.homes.clone();
    if homes.is_empty() {
        let name = rng.pick(FIRST_NAMES).to_lowercase();
        homes.push(format!("/home/{name}"));
    }
    let world = World::draw(&mut rng);
    let want = background.files.min(MAX_FILES) as usize;
    let mut out: Vec<(String, String)> = Vec::with_capacity(want);
    let mut taken: BTreeSet<String> = BTreeSet::new();
    // Names repeat (a project's files, a band's tracks): a clash is drawn again, a bounded
    // number of times, so that an unlucky seed still ends.
    for _ in 0..want * 20 {
        if out.len() == want {
            break;
        }
        let system = !layout.tops.is_empty() && rng.chance(1, 4);
        let (anchor, rel, content) = if system {
            let top = rng.pick(&layout.tops).clone();
            let (rel, content) = world.service_file(&mut rng);
            (top, rel, content)
        } else {
            let home = rng.pick(&homes).clone();
            let (rel, content) = world.home_file(&mut rng);
            (home, rel, content)
        };
        let path = format!("{anchor}/{rel}");
        if taken.contains(&path) || !layout.admits(&anchor, &path) {
            continue;
        }
        taken.insert(path.clone());
        out.push((path, content));
    }
    out
}

/// Where the seed's own files are, and which folders the background leaves as they are.
struct Layout<'a> {
    seed: &'a Seed,
    /// Every folder the seed makes, its files' parents and their ancestors included.
    dirs: BTreeSet<&'a str>,
    /// Folders holding a seed file directly, and the seed's named directories.
    kept: BTreeSet<&'a str>,
    /// `/home/<user>` of every seed path below one.
    homes: Vec<String>,
    /// `/<top>` of every other seed path, when it holds no seed file itself.
    tops: Vec<String>,
}

impl<'a> Layout<'a> {
    fn of(seed: &'a Seed) -> Self {
        let mut dirs = BTreeSet::from(["/"]);
        let mut kept = BTreeSet::new();
        let (mut homes, mut tops) = (BTreeSet::new(), BTreeSet::new());
        let paths = seed.files.keys().chain(&seed.directories);
        for path in paths {
            let parts: Vec<&str> = path.split('/').skip(1).collect();
            match parts.as_slice() {
                // A home is a folder below /home holding something, or named as a directory.
                ["home", user, rest @ ..] if !rest.is_empty() || !seed.files.contains_key(path) => {
                    homes.insert(format!("/home/{user}"));
                }
                ["home", ..] => {}
                [top, _, ..] => {
                    tops.insert(format!("/{top}"));
                }
                _ => {}
            }
        }
        for path in seed.files.keys() {
            kept.insert(parent(path));
        }
        kept.extend(seed.directories.iter().map(String::as_str));
        for path in seed.files.keys().chain(&seed.directories) {
            let mut at = if seed.files.contains_key(path) {
                parent(path)
            } else {
                path.as_str()
            };
            while dirs.insert(at) && at != "/" {
                at = parent(at);
            }
        }
        let tops = tops
            .into_iter()
            .filter(|t| !kept.contains(t.as_str()))
            .collect();
        Layout {
            seed,
            dirs,
            kept,
            homes: homes.into_iter().collect(),
            tops,
        }
    }

    /// Whether `path` may be a background file hung from `anchor`: the one folder of the
    /// seed's it adds an entry to is the anchor (a home, or a top folder holding no seed
    /// file), or the folder a home of its own is made in; it crosses no seed file; and it is
    /// not one slip from a seed file's path.
    fn admits(&self, anchor: &str, path: &str) -> bool {
        if self.seed.files.contains_key(path) || self.dirs.contains(path) {
            return false;
        }
        let mut at = parent(path);
        while !self.dirs.contains(at) {
            if self.seed.files.contains_key(at) {
                return false;
            }
            at = parent(at);
        }
        let entered = if self.dirs.contains(anchor) {
            at == anchor && (self.homes.iter().any(|h| h == anchor) || !self.kept.contains(at))
        } else {
            !self.kept.contains(at)
        };
        entered && !self.seed.files.keys().any(|own| one_slip_apart(own, path))
    }
}

/// What one expansion draws once, so that files gather in a few folders as a real tree's do.
struct World {
    projects: Vec<&'static str>,
    albums: Vec<(i64, &'static str)>,
    records: Vec<(&'static str, &'static str)>,
    trips: Vec<(i64, &'static str)>,
    years: Vec<i64>,
    services: Vec<&'static str>,
}

impl World {
    fn draw(rng: &mut Rng) -> Self {
        let n = |rng: &mut Rng, lo: i64, hi: i64| rng.range(lo, hi) as usize;
        let count = n(rng, 3, 5);
        let projects = rng.sample(PROJECTS, count);
        let count = n(rng, 3, 6);
        let albums = (rng.sample(ALBUMS, count).into_iter())
            .map(|a| (rng.range(2019, 2025), a))
            .collect();
        let count = n(rng, 2, 4);
        let records = (rng.sample(BANDS, count).into_iter())
            .map(|b| (b, *rng.pick(RECORDS)))
            .collect();
        let count = n(rng, 2, 3);
        let trips = (rng.sample(PLACES, count).into_iter())
            .map(|p| (rng.range(2021, 2025), p))
            .collect();
        let count = n(rng, 2, 4);
        let years = (0..count).map(|i| 2025 - i as i64).collect();
        let count = n(rng, 2, 3);
        let services = rng.sample(SERVICES, count);
        World {
            projects,
            albums,
            records,
            trips,
            years,
            services,
        }
    }

    /// A file below a home: (path below it, content).
    fn home_file(&self, rng: &mut Rng) -> (String, String) {
        match rng.below(100) {
            0..25 => self.project_file(rng),
            25..50 => self.picture(rng),
            50..70 => self.music_file(rng),
            70..82 => self.paper(rng),
            82..92 => self.trip_file(rng),
            _ => dish(rng),
        }
    }

    fn project_file(&self, rng: &mut Rng) -> (String, String) {
        let project = *rng.pick(&self.projects);
        let module = *rng.pick(MODULES);
        let (file, content) = match rng.below(8) {
            0 => (
                "CHANGES.md".to_string(),
                format!(
                    "# Changes\n\n- {}\n- {}\n",
                    rng.pick(CHANGES),
                    rng.pick(CHANGES)
                ),
            ),
            1 => (
                "TODO.md".to_string(),
                format!("- [ ] {}\n- [x] {}\n", rng.pick(CHANGES), rng.pick(CHANGES)),
            ),
            2 => (
                "Makefile".to_string(),
                format!("run:\n\tpython3 src/{module}.py\n"),
            ),
            3 => (
                "HACKING.md".to_string(),
                format!(
                    "Run `make run`; the {} sits on pin {}.\n",
                    rng.pick(PARTS),
                    rng.range(2, 27)
                ),
            ),
            4 => (
                format!("docs/{module}.md"),
                format!(
                    "# {module}\n\nThe {} reads every {} seconds.\n",
                    rng.pick(PARTS),
                    rng.range(5, 60)
                ),
            ),
            5 => (
                format!("tests/test_{module}.py"),
                format!("def test_{module}():\n    assert read_{module}() >= 0\n"),
            ),
            _ => (
                format!("src/{module}.py"),
                format!(
                    "\"\"\"{project}: {module}.\"\"\"\n\n\ndef read_{module}():\n    return {}\n",
                    rng.range(0, 1023)
                ),
            ),
        };
        (format!("Tinkering/{project}/{file}"), content)
    }

    fn picture(&self, rng: &mut Rng) -> (String, String) {
        let (year, album) = *rng.pick(&self.albums);
        let (month, day) = (rng.range(1, 12), rng.range(1, 28));
        if rng.chance(1, 12) {
            let month = month_name(month);
            let text = format!("{album}, {month} {year}.\n");
            return (format!("Pictures/{year}/{album}/album.txt"), text);
        }
        let text = format!(
            "JPEG image data, 4032x3024, taken {year}-{month:02}-{day:02} {:02}:{:02}\n",
            rng.range(7, 21),
            rng.range(0, 59)
        );
        let number = rng.range(1000, 9999);
        (format!("Pictures/{year}/{album}/IMG_{number}.jpg"), text)
    }

    fn track(&self, rng: &mut Rng) -> (String, String) {
        let (band, record) = *rng.pick(&self.records);
        let n = rng.range(1, 12);
        let title = *rng.pick(TRACKS);
        (
            format!("{band}/{record}/{n:02}-{title}.mp3"),
            format!(
                "MPEG audio, 320 kbps, {}:{:02}\nArtist: {band}\nAlbum: {record}\n",
                rng.range(2, 6),
                rng.range(0, 59)
            ),
        )
    }

    fn music_file(&self, rng: &mut Rng) -> (String, String) {
        if rng.chance(1, 6) {
            let name = *rng.pick(PLAYLISTS);
            let mut text = format!("#EXTM3U\n#PLAYLIST:{name}\n");
            for _ in 0..rng.range(2, 4) {
                text.push_str(&format!("../{}\n", self.track(rng).0));
            }
            return (format!("Music/Playlists/{name}.m3u"), text);
        }
        let (path, text) = self.track(rng);
        (format!("Music/{path}"), text)
    }

    fn paper(&self, rng: &mut Rng) -> (String, String) {
        let year = *rng.pick(&self.years);
        let (kind, names) = *rng.pick(PAPERS);
        let name = *rng.pick(names);
        let amount = format!("{}.{:02}", rng.range(20, 900), rng.range(0, 99));
        let (file, text) = if kind == "utilities" {
            let month = rng.range(1, 12);
            let text = format!("{name} bill for {} {year}: {amount}\n", month_name(month));
            (format!("{name}-{month:02}.txt"), text)
        } else {
            let stem = name.trim_end_matches(".txt").replace('-', " ");
            let text = format!("{stem}, {year}\nAmount: {amount}\nFiled.\n");
            (name.to_string(), text)
        };
        (format!("Paperwork/{year}/{kind}/{file}"), text)
    }

    fn trip_file(&self, rng: &mut Rng) -> (String, String) {
        let (year, place) = *rng.pick(&self.trips);
        let dir = format!("Trips/{year}-{place}");
        match rng.below(4) {
            0 => {
                let days: Vec<String> = (1..=rng.range(2, 4))
                    .map(|d| format!("Day {d}: {}", rng.pick(DAYS)))
                    .collect();
                (
                    format!("{dir}/itinerary.md"),
                    format!("# {place} {year}\n\n{}\n", days.join("\n")),
                )
            }
            1 => (
                format!("{dir}/packing-list.txt"),
                "passport\nrain jacket\nchargers\nwalking shoes\n".to_string(),
            ),
            _ => {
                let kind = *rng.pick(BOOKINGS);
                let n = rng.range(1, 4);
                let text = format!(
                    "{kind} booking, {year}-{:02}-{:02}\nReference: {}\n",
                    rng.range(1, 12),
                    rng.range(1, 28),
                    rng.range(100_000, 999_999)
                );
                (format!("{dir}/bookings/{kind}-{n}.txt"), text)
            }
        }
    }

    /// A file of a service below a top folder: (path below it, content).
    fn service_file(&self, rng: &mut Rng) -> (String, String) {
        let svc = *rng.pick(&self.services);
        let (file, text) = match rng.below(6) {
            0 => (
                "ABOUT.txt".to_string(),
                format!("{svc} for the house network. Its options live in defaults/.\n"),
            ),
            1 => (
                format!("defaults/{svc}.toml"),
                format!(
                    "listen = \"0.0.0.0:{}\"\nretention_days = {}\n",
                    rng.range(20_000, 29_999),
                    rng.range(7, 90)
                ),
            ),
            2 => (
                "spool/index.json".to_string(),
                format!(
                    "{{\"version\": {}, \"entries\": {}}}\n",
                    rng.range(1, 9),
                    rng.range(10, 999)
                ),
            ),
            _ => {
                let (month, day) = (rng.range(1, 12), rng.range(1, 28));
                let mut times: Vec<i64> =
                    (0..rng.range(2, 5)).map(|_| rng.range(0, 1439)).collect();
                times.sort_unstable();
                let lines: Vec<String> = (times.iter())
                    .map(|t| {
                        format!(
                            "2025-{month:02}-{day:02}T{:02}:{:02}:00Z {}",
                            t / 60,
                            t % 60,
                            rng.pick(EVENTS)
                        )
                    })
                    .collect();
                (
                    format!("journal/{svc}-2025-{month:02}-{day:02}.log"),
                    lines.join("\n") + "\n",
                )
            }
        };
        (format!("{svc}/{file}"), text)
    }
}

fn dish(rng: &mut Rng) -> (String, String) {
    let (course, dishes, ingredients) = *rng.pick(COURSES);
    let dish = *rng.pick(dishes);
    let items: Vec<String> = (rng.sample(ingredients, 3).iter())
        .map(|i| format!("- {i}"))
        .collect();
    let text = format!(
        "# {}\n\nServes {}.\n\n{}\n",
        dish.replace('-', " "),
        rng.range(2, 6),
        items.join("\n")
    );
    (format!("Cookbook/{course}/{dish}.md"), text)
}
