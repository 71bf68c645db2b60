#compdef ntprof
# SPDX-License-Identifier: GPL-2.0
# zsh completion for ntprof(1).
#
# The functions that complete; the build appends the option tables they
# read, printed by the built binary (`ntprof help --completion-tables zsh`,
# the same tables as bash's), and the call of _ntprof_zsh, so that the
# commands, options and option values completed are those of --help.  make
# installs the result as _ntprof in zsh's completion directory; to try it
# from the tree: fpath=(build/completion $fpath); autoload -U compinit; compinit
#
# Completed as by the bash completion: the commands; each command's
# options; an option's value from the words its table gives (after the
# last comma for a list), file names for a FILE, --opt=value as --opt
# value; recordings (.ntp files and directories, after a comma too), the
# command name of `ntprof help`, and record's workload.

# the value of command $1's option $2, from the words before the cursor
_ntprof_zvalue()
{
	local spec=${_ntprof_args[$1 $2]}
	case $spec in
	f)	_files ;;
	w\ *)	compadd -- ${=spec#w } ;;
	l\ *)	if [[ $PREFIX == *,* ]]; then
			IPREFIX+=${PREFIX%,*},
			PREFIX=${PREFIX##*,}
		fi
		compadd -S '' -- ${=spec#l } ;;
	*)	_message -e value 'a value' ;;
	esac
}

# is the cluster of short options $2 of command $1 ("-vs") ended by one that
# takes the next word as its value?
_ntprof_zcluster()
{
	local i
	for ((i = 2; i <= ${#2}; i++)); do
		if (( ${+_ntprof_args[$1 -${2[i]}]} )); then
			(( i == ${#2} ))
			return
		fi
	done
	return 1
}

_ntprof_zsh()
{
	local cmd='' word opt='' last='' skip='' rest='' i nops=0
	local -a ws
	ws=("${(@)words[2,CURRENT-1]}")

	# --opt=value: the value completed, "--opt=" kept
	if [[ $PREFIX == --*=* ]]; then
		opt=${PREFIX%%=*}
		IPREFIX+=$opt=
		PREFIX=${PREFIX#*=}
	fi
	# the command: the first word that is not a global option (or its value)
	for ((i = 1; i <= $#ws; i++)); do
		word=$ws[i]
		if [[ $word != -* ]]; then
			cmd=$word
			break
		fi
		[[ $word != *=* ]] && (( ${+_ntprof_args[ntprof $word]} )) && ((i++))
	done
	if [[ -z $cmd ]]; then
		if [[ -n $opt ]]; then
			_ntprof_zvalue ntprof $opt
		elif (( i > $#ws + 1 )); then
			_ntprof_zvalue ntprof $ws[-1]
		elif [[ $PREFIX == -* ]]; then
			compadd -- ${=_ntprof_opts[ntprof]}
		else
			compadd -- ${=_ntprof_commands}
		fi
		return
	fi
	(( ${+_ntprof_opts[$cmd]} )) || return 1

	# the command's words so far: options, their values, operands
	for word in "${(@)ws[i+1,-1]}"; do
		if [[ -n $skip ]]; then
			skip=''
		elif [[ -n $rest ]]; then
			((nops++))
		elif [[ $word == -- ]]; then
			rest=1
		elif [[ $word == --*=* ]]; then
			:
		elif [[ $word == --* ]]; then
			(( ${+_ntprof_args[$cmd $word]} )) && skip=1 last=$word
		elif [[ $word == -?* ]]; then
			_ntprof_zcluster $cmd $word && skip=1 last=-${word[-1]}
		else
			((nops++))
			# record: the first operand starts the workload's command line
			[[ ${_ntprof_operands[$cmd]} == workload ]] && rest=1
		fi
	done

	if [[ -n $opt ]]; then
		_ntprof_zvalue $cmd $opt
	elif [[ -n $skip ]]; then
		_ntprof_zvalue $cmd $last
	elif [[ -z $rest && $PREFIX == -* ]]; then
		compadd -- ${=_ntprof_opts[$cmd]}
	else
		case ${_ntprof_operands[$cmd]} in
		recordings)
			# compare's HOST.ntp,TARGET.ntp: the file after the last comma
			if [[ $PREFIX == *,* ]]; then
				IPREFIX+=${PREFIX%,*},
				PREFIX=${PREFIX##*,}
			fi
			_files -g '*.ntp' ;;
		workload)
			if ((nops == 0)); then
				_command_names -e
			else
				_files
			fi ;;
		command)
			((nops == 0)) && compadd -- ${=_ntprof_commands} ;;
		esac
	fi
}

