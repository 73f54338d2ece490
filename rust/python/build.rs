//! The JVM UDFs' jar (`rocketroute.spark.jvm`): `java/src` compiled with a JDK's javac into
//! `python/rocketroute/spark/jars/rocketroute-udf.jar`, where maturin collects it into the wheel and the sdist
//! (pyproject.toml's `include`). Here, and not in the Makefile, so that every build of the extension makes it:
//! `pip wheel .`, `pip install .`, a build from the sdist, `maturin build` / `develop` and CI's.
//!
//! javac needs nothing but the JDK: the few Spark and Guava signatures the UDFs use are declared in
//! `java/provided` (read by javac, never put in the jar; the class files are byte for byte those compiled
//! against pyspark's jars), so an isolated build, which has no pyspark, compiles them too.
//!
//! No JDK 17+ (`$JAVA_HOME/bin`, else `PATH`): the jar that is there is kept (the sdist carries one), else the
//! build goes on without it, with a warning, and the pipeline falls back to `reflect` and the Arrow worker.
//! A JDK that is there but fails to compile our sources fails the build: that is a bug of ours.

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

const JAR: &str = "python/rocketroute/spark/jars/rocketroute-udf.jar";
const SOURCES: &str = "java/src";
const PROVIDED: &str = "java/provided";
const JAVA_RELEASE: u32 = 17;
// a fixed entry time (the earliest a zip holds) so the same sources give the same jar, whenever it is built
const JAR_DATE: &str = "1980-01-01T00:00:02Z";

fn main() {
    let root =
        Path::new(&env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
            .join("../..");
    let sources = java_files(&root.join(SOURCES));
    if sources.is_empty() {
        return; // the crate built outside the project (no java/src): there is no jar to make
    }
    println!("cargo::rerun-if-changed={}", root.join(SOURCES).display());
    println!("cargo::rerun-if-changed={}", root.join(PROVIDED).display());
    println!("cargo::rerun-if-env-changed=JAVA_HOME");
    let jar = root.join(JAR);
    match jdk() {
        Ok(bin) => build_jar(bin.as_deref(), &root, &sources, &jar),
        Err(why) if jar.is_file() => {
            println!("cargo::warning=the JVM UDF jar {JAR} is used as it is, not rebuilt ({why})");
        }
        Err(why) => println!(
            "cargo::warning=built without the JVM UDF jar {JAR} ({why}); the pipeline falls back to reflect and \
             the Arrow worker. Install a JDK {JAVA_RELEASE}+ (JAVA_HOME, or javac on PATH) and build again"
        ),
    }
    if jar.is_file() {
        // deleting the jar makes the next build make it again
        println!("cargo::rerun-if-changed={}", jar.display());
    }
}

/// The `.java` files under `dir`, sorted (none when it does not exist).
fn java_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(java_files(&path));
        } else if path.extension().is_some_and(|e| e == "java") {
            found.push(path);
        }
    }
    found.sort();
    found
}

/// `name` in the JDK's `bin`, or to be found on `PATH` when `bin` is `None`.
fn tool(bin: Option<&Path>, name: &str) -> PathBuf {
    let file = format!("{name}{}", env::consts::EXE_SUFFIX);
    bin.as_ref()
        .map_or_else(|| PathBuf::from(&file), |b| b.join(&file))
}

/// The bin folder of a JDK whose javac is release 17 or newer (`None`: javac and jar from `PATH`), or why there
/// is none.
fn jdk() -> Result<Option<PathBuf>, String> {
    let bin = env::var_os("JAVA_HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join("bin"))
        .filter(|b| tool(Some(b), "javac").is_file());
    let javac = tool(bin.as_deref(), "javac");
    let out = Command::new(&javac)
        .arg("-version")
        .output()
        .map_err(|e| match &bin {
            None => format!("no javac in $JAVA_HOME/bin or on PATH: {e}"),
            Some(_) => format!("{} does not run: {e}", javac.display()),
        })?;
    let said = String::from_utf8_lossy(if out.stdout.is_empty() {
        &out.stderr
    } else {
        &out.stdout
    })
    .into_owned();
    let version = said.trim().strip_prefix("javac ").unwrap_or("").to_owned();
    let major = version
        .split(['.', '-', '+'])
        .next()
        .and_then(|m| m.parse::<u32>().ok());
    match major {
        Some(m) if m >= JAVA_RELEASE => Ok(bin),
        Some(_) => Err(format!(
            "{} is javac {version}, older than {JAVA_RELEASE}",
            javac.display()
        )),
        None => Err(format!(
            "{} -version said {:?}",
            javac.display(),
            said.trim()
        )),
    }
}

fn run(command: &mut Command, what: &str) {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{what} did not start: {e}"));
    if !out.status.success() {
        panic!(
            "{what} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn build_jar(bin: Option<&Path>, root: &Path, sources: &[PathBuf], jar: &Path) {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let classes = out.join("udf-classes");
    let empty = out.join("udf-empty-class-path");
    let _ = fs::remove_dir_all(&classes);
    for dir in [
        &classes,
        &empty,
        &jar.parent().expect("the jar has a folder").to_path_buf(),
    ] {
        fs::create_dir_all(dir).unwrap_or_else(|e| panic!("cannot make {}: {e}", dir.display()));
    }
    // -implicit:none: the declarations in java/provided are read, never compiled into the jar; an empty class
    // path so that no CLASSPATH of the environment changes what is compiled
    let mut javac = Command::new(tool(bin, "javac"));
    javac
        .args([
            "--release",
            &JAVA_RELEASE.to_string(),
            "-Xlint:all,-path",
            "-Werror",
            "-encoding",
            "UTF-8",
        ])
        .arg("-implicit:none")
        .arg("-sourcepath")
        .arg(root.join(PROVIDED))
        .arg("-classpath")
        .arg(&empty)
        .arg("-d")
        .arg(&classes)
        .args(sources);
    run(&mut javac, "javac (the JVM UDFs, java/src)");
    let built = out.join("rocketroute-udf.jar");
    let _ = fs::remove_file(&built);
    let mut file_arg = OsString::from("--file=");
    file_arg.push(&built);
    run(
        Command::new(tool(bin, "jar"))
            .args(["--create", &format!("--date={JAR_DATE}")])
            .arg(file_arg)
            .arg("-C")
            .arg(&classes)
            .arg("."),
        "jar (the JVM UDFs)",
    );
    // a name of this process's own: two builds at once (maturin and clippy) never write one file
    let tmp = jar.with_extension(format!("jar.{}.tmp", std::process::id()));
    fs::copy(&built, &tmp).unwrap_or_else(|e| panic!("cannot write {}: {e}", tmp.display()));
    fs::rename(&tmp, jar).unwrap_or_else(|e| panic!("cannot write {}: {e}", jar.display()));
    // the jar takes its newest source's time: cargo reruns this script when a file it watches is newer than the
    // script's last start, so a jar stamped now would make every build run it (and rebuild the crate) again
    let newest = sources
        .iter()
        .chain(java_files(&root.join(PROVIDED)).iter())
        .filter_map(|p| fs::metadata(p).and_then(|m| m.modified()).ok())
        .max()
        .unwrap_or(SystemTime::UNIX_EPOCH);
    fs::File::options()
        .write(true)
        .open(jar)
        .and_then(|f| f.set_modified(newest))
        .unwrap_or_else(|e| panic!("cannot set the time of {}: {e}", jar.display()));
}
