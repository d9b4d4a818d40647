//! `compose.team_directory` (filesystem + memory): the profiles of one department's current
//! members are read from a directory tree and noted in the knowledge graph the way another
//! department's people already are. Types and links must match the graph's exactly; a note is
//! free text, checked for the fact asked (role, office) by normalised containment, and for no
//! other member's. Nobody else is added: not a former member, a contractor or one who moved.

use super::{composed, fill, retry, transient};
use mcpbench_server_filesystem::Filesystem;
use mcpbench_server_memory::{Atom as MemAtom, Memory, world as mem};
use mcpbench_sim::{Pred, Rng, call, normalize_answer, not, params};
use mcpbench_world::{Atom, Composed, InitialState};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};

/// Departments with the roles of their people.
#[rustfmt::skip]
const DEPARTMENTS: &[(&str, &[&str])] = &[
    ("Design", &["Product Designer", "UX Researcher", "Visual Designer", "Design Lead", "Content Designer"]),
    ("Finance", &["Controller", "Financial Analyst", "Accountant", "Payroll Specialist", "Head of Finance"]),
    ("Marketing", &["Brand Manager", "Content Strategist", "SEO Specialist", "Marketing Lead", "Events Coordinator"]),
    ("Sales", &["Account Executive", "Sales Engineer", "Sales Lead", "Account Manager", "Partnerships Manager"]),
    ("Support", &["Support Engineer", "Support Lead", "Technical Writer", "Customer Success Manager", "Support Agent"]),
    ("Engineering", &["Backend Engineer", "Frontend Engineer", "Site Reliability Engineer", "Engineering Manager", "QA Engineer"]),
    ("Legal", &["Legal Counsel", "Paralegal", "Compliance Officer", "Contracts Manager", "Privacy Lead"]),
];
/// Name parts; none is in the memory world's people, who are already in the graph.
#[rustfmt::skip]
const FIRST: &[&str] = &[
    "Nora", "Felix", "Amara", "Bruno", "Chloe", "Darius", "Elena", "Farid", "Greta", "Hugo",
    "Isla", "Jamal", "Keiko", "Leon", "Maya", "Nikolai", "Olga", "Pablo", "Quinn", "Rosa",
    "Samir", "Tessa", "Umar", "Vera", "Wes", "Xenia", "Yusuf", "Zara", "Anton", "Bianca",
    "Caleb", "Dalia",
];
#[rustfmt::skip]
const LAST: &[&str] = &[
    "Vance", "Okoro", "Lindqvist", "Ferreira", "Novak", "Castillo", "Brandt", "Sato",
    "Kowalski", "Haddou", "Ruiz", "Fischer", "Adeyemi", "Marsh", "Quinlan", "Petrov", "Silva",
    "Duarte", "Nakamura", "Holm", "Reyes", "Abbott", "Kaur", "Moretti", "Jansen", "Costa",
    "Varga", "Osei", "Lund", "Bakker", "Ito", "Rahman",
];
#[rustfmt::skip]
const OFFICES: &[&str] = &[
    "Lisbon HQ, 2nd floor", "Lisbon HQ, 4th floor", "Berlin, Room 3.14", "Berlin, Room 1.02",
    "Remote (Porto)", "Remote (Toronto)", "Nairobi hub", "Oslo, 5th floor",
    "Osaka satellite office",
];
const LANGUAGES: &[&str] = &["English", "Portuguese", "German", "Spanish", "French"];
const AGENCIES: &[&str] = &["Brightside Studio", "Northpeak Consulting", "Finch & Co"];
/// How the graph already notes people: the type of a person, the link to a department, how
/// a department is named, and the wording of a role and of an office.
const TYPES: &[&str] = &["person", "colleague", "employee", "staff member"];
const LINKS: &[&str] = &["member_of", "works_in", "belongs_to", "part_of"];
const DEPT_NAMES: &[&str] = &["{d}", "{d} team", "{d} department"];
const ROLE_WORDS: &[&str] = &["Role: ", "Job title: ", "Position: "];
const OFFICE_WORDS: &[&str] = &["Office: ", "Location: ", "Works from: "];

/// What the reference calls, and what an agent may reach for instead.
#[rustfmt::skip]
const TEAM_TOOLS: &[&str] = &[
    "filesystem.list_directory", "filesystem.directory_tree", "filesystem.search_files",
    "filesystem.read_text_file", "filesystem.read_multiple_files", "filesystem.get_file_info",
    "memory.read_graph", "memory.search_nodes", "memory.open_nodes", "memory.create_entities",
    "memory.create_relations", "memory.add_observations",
];

/// Ways to ask, with the `{target}` department, the `{example}` one and `{what}` to note.
const TEAM_GOALS: [&str; 5] = [
    "My memory already has the {example} people in it, each tied to their department. Add the \
     current members of {target} the same way, with each one's {what} as their profile under \
     /team says. Only people who are in {target} today, nobody else.",
    "The team profiles live under /team. Please remember everyone who currently works in \
     {target}, with their {what}, and that they belong to {target}: note them just like the \
     {example} people you already know about. Former members and outsiders stay out.",
    "Could you put {target} into my memory? Everyone who is in {target} now, with their {what} \
     from their profile in /team, recorded the way the {example} people already are. Leave out \
     anyone who has left {target} and anyone who was never in it.",
    "I keep my colleagues in my memory; {example} is done. Do {target} next: each current \
     member, their {what} as /team has it, and a link to {target} like the {example} ones. \
     No former members, no one from outside.",
    "The /team folder has everyone's profile. For the people working in {target} right now, \
     note their {what} in my memory and tie them to {target}, following what's there for \
     {example}. Nobody else, please.",
];

/// What a user may say first: why they ask, or nothing.
const TEAM_OPENERS: &[&str] = &[
    "",
    "We reorganised last month. ",
    "I keep forgetting who is where. ",
    "New quarter, new people. ",
    "Before the all-hands: ",
    "Small admin job for you. ",
    "HR sent the new profiles. ",
    "Someone asked me who is on that team and I had no idea. ",
    "Catching up after my leave. ",
    "For the onboarding pack: ",
    "Housekeeping, while it's quiet. ",
    "Two people moved teams this week. ",
];

/// A person's profile (the department is where it is filed).
#[derive(Clone)]
struct Profile {
    name: String,
    role: &'static str,
    office: &'static str,
}

impl Profile {
    /// The profile of `name` (from a pool that holds enough), with an office drawn here.
    fn new(rng: &mut Rng, name: Option<String>, role: &'static str) -> Self {
        let office = *rng.pick(OFFICES);
        Profile {
            name: name.expect("enough names"),
            role,
            office,
        }
    }

    fn slug(&self) -> String {
        self.name.to_lowercase().replace(' ', "-")
    }

    /// The profile file: the fields every profile has, then `tail`.
    fn text(&self, rng: &mut Rng, dept: &str, tail: &str) -> String {
        let (name, role, office) = (&self.name, self.role, self.office);
        let langs = rng.sample(LANGUAGES, 2).join(", ");
        let (year, month) = (rng.range(2015, 2025), rng.range(1, 12));
        format!(
            "# {name}\n\nDepartment: {dept}\nRole: {role}\nOffice: {office}\n\
             Started: {year}-{month:02}\nLanguages: {langs}\n{tail}"
        )
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn memory(atom: MemAtom) -> Pred<Atom> {
    Pred::Atom(Atom::memory(atom))
}

/// An entity named `name` exists, of type `kind` when given.
fn entity(name: &str, kind: Option<String>) -> Pred<Atom> {
    memory(MemAtom::EntityExists {
        name: name.into(),
        entity_type: kind,
    })
}

/// `name` exists as a `kind`, or the same capitalised.
fn typed(name: &str, kind: &str) -> Pred<Atom> {
    Pred::Any(vec![
        entity(name, Some(kind.into())),
        entity(name, Some(capitalised(kind))),
    ])
}

/// Some observation of `entity` holds `fact` (case, spacing and edge punctuation aside).
fn noted(entity: &str, fact: &str) -> Pred<Atom> {
    memory(MemAtom::ObservationContains {
        entity: entity.into(),
        text: fact.into(),
    })
}

fn linked(from: &str, to: &str, link: &str) -> Pred<Atom> {
    let (from, to, relation_type) = (from.into(), to.into(), link.into());
    memory(MemAtom::RelationExists {
        from,
        to,
        relation_type,
    })
}

pub(super) fn plain(rng: &mut Rng) -> Composed {
    team_directory(rng, false)
}

pub(super) fn after_fault(rng: &mut Rng) -> Composed {
    team_directory(rng, true)
}

fn team_directory(rng: &mut Rng, fault: bool) -> Composed {
    // The target department (4-5 people), the one already in the graph, three others (3-4).
    let depts = rng.sample(DEPARTMENTS, 5);
    let firsts = rng.sample(FIRST, 28);
    let zipped = firsts.iter().zip(rng.sample(LAST, 28));
    let mut names: Vec<String> = zipped.map(|(f, l)| format!("{f} {l}")).collect();
    let mut staff: Vec<Vec<Profile>> = Vec::new();
    for (i, (_, roles)) in depts.iter().enumerate() {
        let size = rng.range(3, 4) as usize + usize::from(i == 0);
        let roles = rng.sample(roles, size).into_iter();
        staff.push(
            roles
                .map(|role| Profile::new(rng, names.pop(), role))
                .collect(),
        );
    }
    let (target, example) = (depts[0].0, depts[1].0);
    let folder = |d: &str| format!("/team/{}", d.to_lowercase());
    let mut files = BTreeMap::new();
    let mut put = |path: String, text: String| files.insert(path, text);
    let readme = "# Team directory\n\nOne folder per department.\n";
    put("/team/README.md".into(), readme.into());
    let blank = "# Full Name\n\nDepartment: <department>\nRole: <role>\nOffice: <office>\n";
    put("/team/templates/profile.md".into(), blank.into());
    for ((d, _), people) in depts.iter().zip(&staff) {
        for p in people {
            put(format!("{}/{}.md", folder(d), p.slug()), p.text(rng, d, ""));
        }
        let (day, channel) = (rng.pick(&["Tuesdays", "Thursdays"]), d.to_lowercase());
        let text = format!("# {d}\n\nWeekly sync on {day}. Questions go to #{channel}.\n");
        put(format!("{}/README.md", folder(d)), text);
    }
    // Decoys in the target's own folder: a former member's profile, the old profile of one
    // who moved to another department, contractors with no profile.
    let archive = format!("{}/archive", folder(target));
    let role = *rng.pick(depts[0].1);
    let gone = Profile::new(rng, names.pop(), role);
    let text = gone.text(rng, target, "Left in 2024.\n");
    put(format!("{archive}/{}.md", gone.slug()), text);
    let mover = staff[2][0].clone();
    let role = *rng.pick(depts[0].1);
    let old = Profile {
        role,
        ..mover.clone()
    };
    let text = old.text(rng, target, &format!("Moved to {} in 2025.\n", depts[2].0));
    put(format!("{archive}/{}.md", mover.slug()), text);
    let outsiders = [names.pop().expect("a name"), names.pop().expect("a name")];
    let text = format!(
        "External contractors working with {target} (not staff):\n- {} ({})\n- {} ({})\n",
        outsiders[0], AGENCIES[0], outsiders[1], AGENCIES[1]
    );
    put(format!("{}/contractors.md", folder(target)), text);

    // The graph: the memory world's company, every department, the example's people noted
    // in a way drawn here, which the new people must follow.
    let (kind, link, naming) = (*rng.pick(TYPES), *rng.pick(LINKS), *rng.pick(DEPT_NAMES));
    let (role_word, office_word) = (*rng.pick(ROLE_WORDS), *rng.pick(OFFICE_WORDS));
    let dept_entity = |d: &str| naming.replace("{d}", d);
    let mut company = mem::company(rng, 4, 2);
    let g = &mut company.graph;
    for (d, _) in &depts {
        let where_ = format!("Profiles in {}", folder(d));
        g.entity(&dept_entity(d), "department", &[&where_]);
    }
    for p in &staff[1] {
        let notes = [
            format!("{role_word}{}", p.role),
            format!("{office_word}{}", p.office),
        ];
        g.entity(&p.name, kind, &[&notes[0], &notes[1]]);
        g.relate(&p.name, &dept_entity(example), link);
    }
    let before = g.seed.entities.len() as u32;

    // What the goal asks to note: the role, the office, or both.
    let asks = [
        ("role", true, false),
        ("office", false, true),
        ("role and office", true, true),
    ];
    let (what, role, office) = *rng.pick(&asks);
    let (members, dept) = (&staff[0], dept_entity(target));
    let count = before + members.len() as u32;
    let mut checks = vec![memory(MemAtom::EntityCount {
        count,
        entity_type: None,
    })];
    // The facts asked of each member as the profiles word them, with how the graph words them.
    let asked = |p: &Profile| {
        let both = [(role, role_word, p.role), (office, office_word, p.office)];
        both.into_iter()
            .filter(|(wanted, ..)| *wanted)
            .map(|(_, word, fact)| (word, fact))
            .collect::<Vec<_>>()
    };
    let (mut entities, mut relations) = (Vec::new(), Vec::new());
    for p in members {
        let notes: Vec<String> = asked(p).iter().map(|(w, f)| format!("{w}{f}")).collect();
        checks.push(typed(&p.name, kind));
        checks.extend(asked(p).iter().map(|(_, fact)| noted(&p.name, fact)));
        // No other member's fact in this one's notes, unless the own notes hold it anyway (a
        // shared office): noting everyone's role on everybody fails.
        let own: Vec<String> = notes.iter().map(|n| normalize_answer(n)).collect();
        let others: BTreeSet<&str> = members.iter().flat_map(asked).map(|(_, f)| f).collect();
        let others: Vec<Pred<Atom>> = others
            .into_iter()
            .filter(|f| !own.iter().any(|n| n.contains(&normalize_answer(f))))
            .map(|f| noted(&p.name, f))
            .collect();
        if !others.is_empty() {
            checks.push(not(Pred::Any(others)));
        }
        checks.push(linked(&p.name, &dept, link));
        entities.push(json!({ "name": p.name, "entityType": kind, "observations": notes }));
        relations.push(json!({ "from": p.name, "to": dept, "relationType": link }));
    }
    for name in [&gone.name, &outsiders[0], &outsiders[1], &mover.name] {
        checks.push(not(entity(name, None)));
    }

    // The reference: the folder, each profile, the graph, then the people and their links.
    let list = call::<Filesystem>("list_directory", json!({ "path": folder(target) }));
    let mut steps = vec![list];
    for p in members {
        let path = format!("{}/{}.md", folder(target), p.slug());
        steps.push(call::<Filesystem>(
            "read_text_file",
            json!({ "path": path }),
        ));
    }
    steps.push(call::<Memory>("read_graph", json!({})));
    steps.push(call::<Memory>(
        "create_entities",
        json!({ "entities": entities }),
    ));
    steps.push(call::<Memory>(
        "create_relations",
        json!({ "relations": relations }),
    ));
    // The fault hits the second profile read, or the links once the people are in.
    let (at, tool, on_call, what_failed) = if rng.chance(1, 2) {
        (2, "filesystem.read_text_file", 2, "the file was not read")
    } else {
        (
            steps.len() - 1,
            "memory.create_relations",
            1,
            "nothing was saved",
        )
    };
    let mut faults = vec![];
    if fault {
        retry(&mut steps, at);
        faults.push(transient(rng, tool, on_call, what_failed));
    }

    let slots = [("what", what), ("target", target), ("example", example)];
    let template = *rng.pick(&TEAM_GOALS);
    let goal = format!("{}{}", rng.pick(TEAM_OPENERS), fill(template, &slots));
    let fs = mcpbench_server_filesystem::Seed {
        files,
        ..Default::default()
    };
    let state = InitialState {
        filesystem: Some(fs),
        memory: Some(company.graph.seed),
        ..Default::default()
    };
    let params = params(&[
        ("department", json!(target)),
        ("example", json!(example)),
        ("members", json!(members.len())),
        ("asks", json!(what)),
        ("entity_type", json!(kind)),
        ("relation", json!(link)),
    ]);
    composed(goal, state, TEAM_TOOLS, checks, faults, steps, params)
}
