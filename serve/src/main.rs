//! `katas-serve`: what `cargo katas serve` runs — and, as `katas-serve view FILE`, what
//! `cargo katas view` runs to show a kata's failing run.
//!
//! Arguments in two layers: [`Args`] is the command line as typed, [`resolve`] turns it into
//! the server's [`Config`] plus what to tell the user (ripgrep's lowargs / hiargs).

use std::net::IpAddr;
use std::process::ExitCode;

use serve::{ClockMode, Config, Server};

const USAGE: &str = "\
usage: cargo katas serve [--port 8000] [--seed N] [--clock real|manual] [--host 127.0.0.1]

Serves the engine on DynamoDB's HTTP API. Point an SDK or the AWS CLI at it:
  aws dynamodb list-tables --endpoint-url http://127.0.0.1:8000
(any credentials and Region are accepted).

  --port N          port to listen on (default 8000; 0 picks a free one)
  --seed N          the world's seed (default 0): the same seed and requests replay the same run
  --clock real      simulated time follows the wall clock (default)
  --clock manual    time moves only on POST /_katas/advance?ms=N
  --host ADDR       address to bind (default 127.0.0.1; anything else is reachable from
                    other machines, and there is no authentication)";

const WARN_EXPOSED: &str = "warning: listening beyond loopback: anyone who can reach this \
address can read and change every table (requests are not authenticated)";

/// The command line as typed.
#[derive(Debug, Default)]
struct Args {
    port: Option<String>,
    seed: Option<String>,
    clock: Option<String>,
    host: Option<String>,
    help: bool,
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut out = Args::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (arg, None),
        };
        let slot = match flag.as_str() {
            "--port" => &mut out.port,
            "--seed" => &mut out.seed,
            "--clock" => &mut out.clock,
            "--host" => &mut out.host,
            "-h" | "--help" => {
                out.help = true;
                continue;
            }
            other => return Err(format!("unknown argument '{other}'")),
        };
        let value = inline
            .or_else(|| args.next())
            .ok_or_else(|| format!("{flag} needs a value"))?;
        *slot = Some(value);
    }
    Ok(out)
}

/// The server's configuration, and whether to warn that it is exposed.
fn resolve(args: &Args) -> Result<(Config, bool), String> {
    let mut config = Config::default();
    if let Some(p) = &args.port {
        config.port = p
            .parse()
            .map_err(|_| format!("--port takes a port number (0-65535), not '{p}'"))?;
    }
    if let Some(s) = &args.seed {
        config.seed = s
            .parse()
            .map_err(|_| format!("--seed takes a whole number, not '{s}'"))?;
    }
    if let Some(c) = &args.clock {
        config.clock = c.parse::<ClockMode>()?;
    }
    if let Some(h) = &args.host {
        config.host = match h.as_str() {
            "localhost" => IpAddr::from([127, 0, 0, 1]),
            _ => h
                .parse()
                .map_err(|_| format!("--host takes an IP address, not '{h}'"))?,
        };
    }
    Ok((config.clone(), !config.host.is_loopback()))
}

const VIEW_USAGE: &str = "\
usage: katas-serve view FILE [--port N] [--no-open]

Serves the saved picture of a kata's failing run (what `cargo katas view KATA` runs) on
http://127.0.0.1:PORT/_katas/ until Enter, and opens it in the browser where one can be
started (xdg-open, open).

  --port N      port to listen on (default 0: a free one)
  --no-open     print the address only";

/// `katas-serve view FILE`: the failing run's page (see `serve::view::saved`).
fn view(args: &[String]) -> ExitCode {
    let mut file = None;
    let mut port = 0u16;
    let mut open = true;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--no-open" => open = false,
            "--port" => match it.next().and_then(|p| p.parse().ok()) {
                Some(p) => port = p,
                None => {
                    eprintln!("error: --port takes a port number\n\n{VIEW_USAGE}");
                    return ExitCode::from(2);
                }
            },
            "-h" | "--help" => {
                println!("{VIEW_USAGE}");
                return ExitCode::SUCCESS;
            }
            f if file.is_none() && !f.starts_with('-') => file = Some(std::path::PathBuf::from(f)),
            other => {
                eprintln!("error: unknown argument '{other}'\n\n{VIEW_USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let Some(file) = file else {
        eprintln!("error: which saved run?\n\n{VIEW_USAGE}");
        return ExitCode::from(2);
    };
    let run = match serve::view::saved::load(&file) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let kata = serve::view::saved::kata_of(&file);
    let page = serve::view::saved::page(&run, &kata);
    let addr = match serve::view::saved::spawn(port, page) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: cannot listen on 127.0.0.1:{port}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let url = format!("http://{addr}/_katas/");
    println!(
        "inside the failing run of {kata} (test {}): {url}",
        run.test
    );
    if open && open_browser(&url) {
        println!("opened in your browser");
    }
    println!("press Enter to stop viewing");
    // Enter stops; a closed stdin (started in the background) serves until killed.
    let mut line = String::new();
    match std::io::stdin().read_line(&mut line) {
        Ok(0) | Err(_) => loop {
            std::thread::park();
        },
        Ok(_) => ExitCode::SUCCESS,
    }
}

/// Starts the desktop's browser on `url` where there is one; whether a command started.
fn open_browser(url: &str) -> bool {
    let program = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else if std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
    {
        "xdg-open"
    } else {
        // No desktop (SSH, a container): the address printed is the way in.
        return false;
    };
    std::process::Command::new(program)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .is_ok()
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some("view") {
        return view(&argv[1..]);
    }
    let args = match parse(argv) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if args.help {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let (config, exposed) = match resolve(&args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if exposed {
        eprintln!("{WARN_EXPOSED}");
    }
    let server = match Server::bind(&config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "error: cannot listen on {}:{}: {e}",
                config.host, config.port
            );
            return ExitCode::FAILURE;
        }
    };
    let addr = server
        .local_addr()
        .map_or_else(|_| "?".into(), |a| a.to_string());
    let clock = match config.clock {
        ClockMode::Real => "real (simulated time follows the wall clock)",
        ClockMode::Manual => "manual (POST /_katas/advance?ms=N moves it)",
    };
    println!(
        "DynamoDB Katas engine on http://{addr}  (seed {}, clock {clock})\n\
         try:  aws dynamodb list-tables --endpoint-url http://{addr}\n\
         live view: http://{addr}/_katas/ (partitions, capacity, replicas, faults)\n\
         Ctrl-C stops it; the world lives in memory only.",
        config.seed
    );
    match server.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
